// Endpoint records reaching every node of a network (docs/design/swarm.md, "Endpoint records"):
// two berthd nodes, a service with a task on each on an overlay network; each node's table, as
// `docker network inspect --verbose` shows it (dockerd's Services, built from the table alone),
// holds both tasks' records, with the node each runs on; a scale-down takes a record away (a node
// left without a task on the network no longer gets its table);
// a node killed loses its records everywhere once its session lapses, and publishes them again
// when it is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface ServiceInfo {
  VIP: string;
  Ports: string[];
  LocalLBIndex: number;
  Tasks: Array<{ Name: string; EndpointID: string; EndpointIP: string; Info: Record<string, string> }>;
}

interface TaskJson {
  ID: string;
  Slot: number;
  NodeID: string;
  DesiredState: string;
  Status: { State: string };
  NetworksAttachments?: Array<{ Network: { ID: string }; Addresses: string[] }>;
}

async function cli(node: SwarmNode, args: string[]): Promise<string> {
  const r = await node.docker(args, { timeoutMs: 120_000 });
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

describe('endpoint records on every node of a network', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  let n2: SwarmNode;
  let network: string;

  before(async () => {
    swarm = await startSwarmNodes(2);
    [n1, n2] = swarm.nodes as [SwarmNode, SwarmNode];
    await Promise.all(swarm.nodes.map((n) => loadBusybox(n.berthd)));
    await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    const token = (await cli(n1, ['swarm', 'join-token', '-q', 'worker'])).trim();
    await cli(n2, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    await until('two ready nodes', async () => (await n1.request('GET', '/nodes')).json() as Array<{ Status: { State: string } }>, (ns) => ns.length === 2 && ns.every((n) => n.Status.State === 'ready'));
    network = (await cli(n1, ['network', 'create', '-d', 'overlay', 'backend'])).trim();
  });
  after(async () => {
    await swarm?.close();
  });

  /** The service's tasks as the node's table has them, by the node's verbose inspect. */
  const services = async (node: SwarmNode) => {
    const r = await node.request('GET', `/networks/${network}?verbose=true`);
    return r.status === 200 ? ((r.json() as { Services?: Record<string, ServiceInfo> }).Services ?? {}) : {};
  };
  const tasks = async () => (await n1.request('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'], 'desired-state': ['running'] }))}`)).json() as TaskJson[];

  it('gives each node of the network both tasks’ records, with the node each runs on', async () => {
    await cli(n1, ['service', 'create', '--detach', '--name', 'web', '--replicas', '2', '--replicas-max-per-node', '1', '--stop-grace-period', '1s', '--network', 'name=backend,alias=api', 'busybox', 'sleep', '3600']);
    const running = await until('two running tasks', tasks, (ts) => ts.length === 2 && ts.every((t) => t.Status.State === 'running'), 60_000);
    // each task's address is the one the managers' allocator gave it, distinct across the nodes
    const given = new Map(running.map((t) => [t.ID, t.NetworksAttachments!.find((a) => a.Network.ID === network)!.Addresses[0]!.split('/')[0]]));
    assert.equal(new Set(given.values()).size, 2);
    for (const node of [n1, n2]) {
      const seen = await until(`both records on ${node.name}`, () => services(node), (s) => (s.web?.Tasks.length ?? 0) === 2);
      const web = seen.web!;
      assert.deepEqual(web.Ports, []);
      assert.deepEqual(web.Tasks.map((t) => t.Info['Host IP']).sort(), [n1.addr, n2.addr].sort());
      for (const t of web.Tasks) {
        assert.match(t.Name, /^web\.[12]\.\w{25}$/);
        assert.equal(t.EndpointIP, given.get(t.Name.split('.')[2]!));
        assert.match(t.EndpointID, /^[0-9a-f]{64}$/);
      }
    }
  });

  it('takes a task’s record away when the service scales down; a node left with no task on the network has its table no more', async () => {
    await cli(n1, ['service', 'scale', '--detach', 'web=1']);
    const [left] = await until('one running task', tasks, (ts) => ts.length === 1 && ts[0]!.Status.State === 'running', 30_000);
    const byId = new Map<string, SwarmNode>();
    for (const n of [n1, n2]) byId.set(((await n.request('GET', '/info')).json() as { Swarm: { NodeID: string } }).Swarm.NodeID, n);
    const holder = byId.get(left!.NodeID)!;
    const other = holder === n1 ? n2 : n1;
    await until(`one record on ${holder.name}`, () => services(holder), (s) => (s.web?.Tasks.length ?? 0) === 1, 30_000);
    await until(`no table on ${other.name}`, () => services(other), (s) => s.web === undefined, 30_000);
  });

  it('loses a killed node’s records everywhere once its session lapses, and has them again when it is back', async () => {
    await cli(n1, ['service', 'scale', '--detach', 'web=2']);
    await until('both records on n1', () => services(n1), (s) => (s.web?.Tasks.length ?? 0) === 2, 60_000);
    await n2.kill();
    await until('n2’s record gone from n1', () => services(n1), (s) => (s.web?.Tasks ?? []).every((t) => t.Info['Host IP'] !== n2.addr), 30_000);
    await n2.start();
    await until('n2’s record back on n1', () => services(n1), (s) => (s.web?.Tasks ?? []).some((t) => t.Info['Host IP'] === n2.addr), 60_000);
  });
});
