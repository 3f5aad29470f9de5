// A rolling update whose leader dies in the middle: three berthd managers (etcd members of their
// own), a service of six replicas updated one task at a time; once the update has begun, the
// leader's berthd and its containers are killed as a machine going down. Another manager leads
// and carries the update on to its end, and no slot ends with two running tasks or none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface TaskJson {
  ID: string;
  Slot: number;
  NodeID: string;
  DesiredState: string;
  Spec: { ContainerSpec: { Image: string } };
  Status: { State: string };
}

interface NodeJson {
  ID: string;
  Status: { State: string };
  ManagerStatus?: { Leader?: boolean };
}

async function get<T>(node: SwarmNode, urlPath: string): Promise<T> {
  const r = await node.request('GET', urlPath);
  if (r.status !== 200) throw new Error(`GET ${urlPath} on ${node.name}: ${r.status} ${r.body}`);
  return r.json() as T;
}

async function cli(node: SwarmNode, args: string[]): Promise<string> {
  const r = await node.docker(args, { timeoutMs: 120_000 });
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

describe('a rolling update whose leader is killed', () => {
  let swarm: SwarmNodes;
  let managers: SwarmNode[];
  const byId = new Map<string, SwarmNode>();

  before(async () => {
    swarm = await startSwarmNodes(3);
    managers = swarm.nodes;
    const [n1, n2, n3] = managers as [SwarmNode, SwarmNode, SwarmNode];
    await Promise.all(managers.flatMap((n) => [loadBusybox(n.berthd), loadBusybox(n.berthd, 'busybox:v2')]));
    await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    const token = (await cli(n1, ['swarm', 'join-token', '-q', 'manager'])).trim();
    for (const n of [n2, n3]) await cli(n, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    await until('three ready managers', () => get<NodeJson[]>(n1, '/nodes'), (ns) => ns.length === 3 && ns.every((x) => x.Status.State === 'ready' && x.ManagerStatus !== undefined));
    for (const n of managers) byId.set((await get<{ Swarm: { NodeID: string } }>(n, '/info')).Swarm.NodeID, n);
  });
  after(async () => {
    await swarm?.close();
  });

  it('goes on under the next leader, each slot ending with exactly one running task of the new spec', async () => {
    const n1 = managers[0]!;
    await cli(n1, ['service', 'create', '--detach', '--name', 'web', '--replicas', '6', '--stop-grace-period', '1s', '--update-parallelism', '1', '--update-delay', '1s', '--update-monitor', '1s', 'busybox', 'sleep', '3600']);
    const tasks = (n: SwarmNode) => get<TaskJson[]>(n, `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'], 'desired-state': ['running'] }))}`);
    await until('six running tasks', () => tasks(n1), (ts) => ts.length === 6 && ts.every((t) => t.Status.State === 'running'), 60_000);
    await cli(n1, ['service', 'update', '--detach', '--image', 'busybox:v2', 'web']);
    // the update has begun: one task of the new spec runs
    await until('a first task updated', () => tasks(n1), (ts) => ts.some((t) => t.Spec.ContainerSpec.Image === 'busybox:v2' && t.Status.State === 'running'), 60_000);
    const leaderId = (await get<NodeJson[]>(n1, '/nodes')).find((n) => n.ManagerStatus?.Leader === true)!.ID;
    const leader = byId.get(leaderId)!;
    await leader.kill();
    leader.killContainers();
    const survivor = managers.find((n) => n !== leader)!;
    const done = await until(
      'the update to complete under the next leader',
      () => get<{ UpdateStatus?: { State: string } }>(survivor, '/services/web').catch(() => undefined),
      (s) => s?.UpdateStatus?.State === 'completed',
      120_000,
    );
    assert.equal(done!.UpdateStatus!.State, 'completed');
    const final = await until('every slot settled on the nodes left', () => tasks(survivor), (ts) => ts.length === 6 && ts.every((t) => t.Status.State === 'running' && t.NodeID !== leaderId), 60_000);
    assert.deepEqual(final.map((t) => t.Slot).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6]);
    assert.ok(final.every((t) => t.Spec.ContainerSpec.Image === 'busybox:v2'));
    await leader.start();
  });
});
