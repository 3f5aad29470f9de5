// Swarm overlay networks across three berthd nodes (issue 21's acceptance): tasks of a service on
// an overlay network reach each other across nodes through VXLAN, and the outside through
// docker_gwbridge.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface TaskJson {
  ID: string;
  NodeID: string;
  Status: { State: string; ContainerStatus?: { ContainerID: string } };
  NetworksAttachments?: Array<{ Network: { ID: string }; Addresses: string[] }>;
}

async function cli(node: SwarmNode, args: string[]): Promise<string> {
  const r = await node.docker(args, { timeoutMs: 120_000 });
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

describe('swarm overlay networks', () => {
  let swarm: SwarmNodes;
  let nodes: SwarmNode[];
  let network: string;
  const nodeOf = new Map<string, SwarmNode>();

  before(async () => {
    swarm = await startSwarmNodes(3);
    nodes = swarm.nodes;
    const [n1, ...workers] = nodes as [SwarmNode, ...SwarmNode[]];
    await Promise.all(nodes.map((n) => loadBusybox(n.berthd)));
    await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    const token = (await cli(n1, ['swarm', 'join-token', '-q', 'worker'])).trim();
    for (const w of workers) await cli(w, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    await until('three ready nodes', async () => (await n1.request('GET', '/nodes')).json() as Array<{ ID: string; Status: { State: string; Addr: string } }>, (ns) => ns.length === 3 && ns.every((n) => n.Status.State === 'ready'));
    const listed = (await n1.request('GET', '/nodes')).json() as Array<{ ID: string; Status: { Addr: string } }>;
    for (const n of listed) nodeOf.set(n.ID, nodes.find((x) => x.addr === n.Status.Addr)!);
    network = (await cli(n1, ['network', 'create', '-d', 'overlay', '--attachable', 'backend'])).trim();
  });
  after(async () => {
    await swarm?.close();
  });

  const tasksOf = async (service: string) => (await nodes[0]!.request('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service], 'desired-state': ['running'] }))}`)).json() as TaskJson[];
  const running = (service: string, n: number) => until(`${n} running tasks of ${service}`, () => tasksOf(service), (ts) => ts.length === n && ts.every((t) => t.Status.State === 'running'), 60_000);
  const addressOf = (t: TaskJson) => t.NetworksAttachments!.find((a) => a.Network.ID === network)!.Addresses[0]!.split('/')[0]!;
  /** `docker exec` in the task's container, on the node it runs on. */
  const execIn = (t: TaskJson, args: string[]) => nodeOf.get(t.NodeID)!.docker(['exec', t.Status.ContainerStatus!.ContainerID, ...args], { timeoutMs: 30_000 });

  it('carries traffic between tasks on different nodes', async () => {
    await cli(nodes[0]!, ['service', 'create', '--detach', '--name', 'web', '--replicas', '3', '--replicas-max-per-node', '1', '--network', 'backend', 'busybox', 'sh', '-c', 'echo "$(hostname)" > /www.txt; httpd -f -p 80 -h /']);
    const tasks = await running('web', 3);
    assert.equal(new Set(tasks.map((t) => t.NodeID)).size, 3);
    for (const from of tasks) {
      for (const to of tasks.filter((t) => t !== from)) {
        const r = await until(`${addressOf(to)} from ${addressOf(from)}`, () => execIn(from, ['timeout', '3', 'wget', '-qO-', `http://${addressOf(to)}/www.txt`]), (x) => x.code === 0, 20_000);
        assert.equal(r.stdout.trim().length > 0, true);
      }
    }
  });
});
