// Swarm overlay networks across three berthd nodes (issue 21's acceptance): tasks of a service on
// an overlay network reach each other across nodes through VXLAN, and the outside through
// docker_gwbridge.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { protocDecode, RECORD } from '../../helpers/protoc.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface TaskJson {
  ID: string;
  Slot: number;
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
  let ingressId: string;
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
    ingressId = (await cli(n1, ['network', 'inspect', '--format', '{{.ID}}', 'ingress'])).trim();
  });
  after(async () => {
    await swarm?.close();
  });

  const tasksOf = async (service: string) => (await nodes[0]!.request('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service], 'desired-state': ['running'] }))}`)).json() as TaskJson[];
  const running = (service: string, n: number) => until(`${n} running tasks of ${service}`, () => tasksOf(service), (ts) => ts.length === n && ts.every((t) => t.Status.State === 'running'), 60_000);
  /** A node's endpoint table of a network, each value decoded by protoc, with its key. */
  const decodedTable = async (node: SwarmNode, networkId: string) => {
    const view = (await node.request('GET', `/debug/networks/${networkId}/tables/endpoint_table`)).json() as { Entries?: Array<{ Key: string; Value: string }> };
    return (view.Entries ?? []).map((e) => `${e.Key}\n${protocDecode(RECORD, Buffer.from(e.Value, 'base64'))}`).sort();
  };
  const addressOf = (t: TaskJson) => t.NetworksAttachments!.find((a) => a.Network.ID === network)!.Addresses[0]!.split('/')[0]!;
  /** `docker exec` in the task's container, on the node it runs on. */
  const execIn = (t: TaskJson, args: string[]) => nodeOf.get(t.NodeID)!.docker(['exec', t.Status.ContainerStatus!.ContainerID, ...args], { timeoutMs: 30_000 });

  it('carries traffic between tasks on different nodes', async () => {
    // by the API: the CLI names no port; the port's name is what SRV queries ask for
    const created = await nodes[0]!.request('POST', '/services/create', { json: {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'busybox', Command: ['sh', '-c', 'echo "$(hostname)" > /www.txt; httpd -f -p 80 -h /'] }, Networks: [{ Target: 'backend' }], Placement: { MaxReplicas: 1 } },
      Mode: { Replicated: { Replicas: 3 } },
      // a host-mode port: the routing mesh below runs on nodes with no task on the ingress network
      EndpointSpec: { Ports: [{ Name: 'http', Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode: 'host' }] },
    } });
    assert.equal(created.status, 201, created.body);
    const tasks = await running('web', 3);
    assert.equal(new Set(tasks.map((t) => t.NodeID)).size, 3);
    for (const from of tasks) {
      for (const to of tasks.filter((t) => t !== from)) {
        const r = await until(`${addressOf(to)} from ${addressOf(from)}`, () => execIn(from, ['timeout', '3', 'wget', '-qO-', `http://${addressOf(to)}/www.txt`]), (x) => x.code === 0, 20_000);
        assert.equal(r.stdout.trim().length > 0, true);
      }
    }
  });

  it('resolves the service to its VIP, tasks.<service> to every task, <name>.<network>, task names across nodes and SRV by port name', async () => {
    const tasks = await running('web', 3);
    const inspected = (await nodes[0]!.request('GET', '/services/web')).json() as { Endpoint: { VirtualIPs: Array<{ NetworkID: string; Addr: string }> } };
    const vip = inspected.Endpoint.VirtualIPs.find((v) => v.NetworkID === network)!.Addr.split('/')[0]!;
    const addresses = tasks.map(addressOf).sort();
    const [from, ...others] = tasks as [TaskJson, ...TaskJson[]];
    /** The A answers nslookup prints for `name` (its resolver's own line first left out). */
    const lookup = async (name: string, type = 'a') => {
      const r = await execIn(from, ['nslookup', `-type=${type}`, name]);
      return { code: r.code, out: r.stdout };
    };
    const answers = (out: string) => [...out.split(/Name:\s/).slice(1).join('\n').matchAll(/Address: (\S+)/g)].map((m) => m[1]!).sort();
    assert.deepEqual(answers((await until('the service name', () => lookup('web'), (r) => r.code === 0, 20_000)).out), [vip]);
    assert.deepEqual(answers((await until('tasks.web', () => lookup('tasks.web'), (r) => answers(r.out).length === 3, 20_000)).out), addresses);
    assert.deepEqual(answers((await lookup('web.backend')).out), [vip]);
    for (const other of others) {
      const name = `web.${other.Slot}.${other.ID}`;
      assert.deepEqual(answers((await lookup(name)).out), [addressOf(other)], name);
      const r = await execIn(from, ['timeout', '3', 'wget', '-qO-', `http://${name}/www.txt`]);
      assert.equal(r.code, 0, r.stderr);
    }
    const srv = await lookup('_http._tcp.web', 'srv');
    assert.equal(srv.code, 0, srv.out);
    const targets = [...srv.out.matchAll(/service = 0 0 80 (\S+)/g)].map((m) => m[1]!.replace(/\.$/, '')).sort();
    assert.deepEqual(targets, tasks.map((t) => `web.${t.Slot}.${t.ID}.backend`).sort(), srv.out);
    assert.notEqual((await lookup('_nope._tcp.web', 'srv')).code, 0);
  });

  it('balances the VIP over every task, from each node', async () => {
    const tasks = await running('web', 3);
    const hostnames = tasks.map((t) => t.Status.ContainerStatus!.ContainerID.slice(0, 12)).sort();
    for (const from of tasks) {
      const r = await execIn(from, ['sh', '-c', 'for i in $(seq 60); do timeout 3 wget -qO- http://web/www.txt; done']);
      assert.deepEqual([...new Set(r.stdout.trim().split('\n'))].sort(), hostnames, r.stderr);
    }
  });

  it('answers ports published through the routing mesh on every node, from every task, and refuses once no task is left', async () => {
    await cli(nodes[0]!, ['service', 'create', '--detach', '--name', 'mesh', '--replicas', '2', '--replicas-max-per-node', '1', '-p', '8081:80', '-p', '80', 'busybox', 'sh', '-c', 'hostname > /www.txt; httpd -f -p 80 -h /']);
    const tasks = await running('mesh', 2);
    const hostnames = tasks.map((t) => t.Status.ContainerStatus!.ContainerID.slice(0, 12)).sort();
    const published = ((await nodes[0]!.request('GET', '/services/mesh')).json() as { Endpoint: { Ports: Array<{ PublishedPort: number }> } }).Endpoint.Ports.map((p) => p.PublishedPort).sort();
    assert.deepEqual(published, [30000, 8081]);
    const busy = new Set(tasks.map((t) => nodeOf.get(t.NodeID)!));
    assert.equal(nodes.filter((n) => !busy.has(n)).length, 1, 'one node runs no task of it');
    /** `count` requests from `client`'s namespace to `node`'s address and port: the hostnames that answered. */
    const ask = (client: SwarmNode, node: SwarmNode, port: number, count: number) =>
      client.exec('sh', ['-c', `for i in $(seq ${count}); do busybox timeout 3 busybox wget -qO- http://${node.addr}:${port}/www.txt || echo failed; done`], { timeoutMs: 60_000 }).trim().split('\n');
    // a task reported running has its records on every node a moment later, not at once
    const sameTasks = (answers: string[]) => [...new Set(answers)].sort().join() === hostnames.join();
    for (const node of nodes) {
      const client = nodes.find((n) => n !== node)!;
      const seen = await until(`both tasks through the mesh on ${node.name}, on both ports`, async () => [ask(client, node, 8081, 20), ask(client, node, 30000, 20)], (both) => both.every(sameTasks), 20_000);
      assert.ok(seen.every(sameTasks), JSON.stringify(seen));
    }
    const answered = ask(nodes[1]!, nodes[0]!, 8081, 300);
    assert.deepEqual([...new Set(answered)].sort(), hostnames);
    // the ingress network's records, the same on every node, carry the ports; protoc reads them
    const records = await until('the ingress records', () => Promise.all(nodes.map((n) => decodedTable(n, ingressId))), (all) => all.every((t) => t.length === 2 && t.join() === all[0]!.join()), 20_000);
    for (const text of records[0]!) assert.match(text, /ingress_ports \{\n  target_port: 80\n  published_port: 8081\n\}\ningress_ports \{\n  target_port: 80\n  published_port: 30000\n\}/);
    await cli(nodes[0]!, ['service', 'scale', '--detach', 'mesh=0']);
    await running('mesh', 0);
    const refused = await until('connections refused', async () => nodes[1]!.exec('sh', ['-c', `busybox timeout 5 busybox wget -qO- http://${nodes[0]!.addr}:8081/ 2>&1; echo "rc=$?"`]), (out) => out.includes('refused'), 20_000);
    assert.match(refused, /refused/);
  });

  it('lets a plain container join an attachable network on any node, found by name from the tasks and finding them', async () => {
    const tasks = await running('web', 3);
    const node = nodes[2]!;
    await cli(node, ['run', '-d', '--name', 'probe', '--network', 'backend', 'busybox', 'sleep', '3600']);
    const probe = JSON.parse(await cli(node, ['inspect', 'probe'])) as Array<{ Id: string; NetworkSettings: { Networks: Record<string, { IPAddress: string }> } }>;
    const address = probe[0]!.NetworkSettings.Networks.backend!.IPAddress;
    assert.match(address, /^10\.0\.1\.\d+$/);
    const from = tasks.find((t) => nodeOf.get(t.NodeID) !== node)!;
    const found = await until('probe by name from a task', () => execIn(from, ['nslookup', 'probe']), (r) => r.code === 0 && r.stdout.includes(address), 20_000);
    assert.match(found.stdout, new RegExp(`Address: ${address.replace(/\./g, '\\.')}`));
    const r = await node.docker(['exec', 'probe', 'sh', '-c', 'timeout 3 wget -qO- http://web/www.txt'], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    // a network that is not attachable is the swarm's alone
    await cli(nodes[0]!, ['network', 'create', '-d', 'overlay', 'closed']);
    const refused = await node.docker(['run', '--rm', '--network', 'closed', 'busybox', 'true']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /network closed not manually attachable/);
    await cli(node, ['rm', '-f', 'probe']);
    await until('probe gone from DNS', () => execIn(from, ['nslookup', 'probe']), (x) => x.code !== 0, 20_000);
  });

  it('answers a dnsrr service with its tasks, and every node holds the same records, as protoc reads them', async () => {
    await cli(nodes[0]!, ['service', 'create', '--detach', '--name', 'rr', '--replicas', '2', '--endpoint-mode', 'dnsrr', '--network', 'backend', 'busybox', 'sleep', '3600']);
    const rr = await running('rr', 2);
    const [from] = await running('web', 3);
    const lookup = await until('rr answered', () => execIn(from!, ['nslookup', 'rr']), (r) => rr.every((t) => r.stdout.includes(addressOf(t))), 20_000);
    assert.equal(lookup.code, 0);
    const tables = await until('the same records on every node', () => Promise.all(nodes.map((n) => decodedTable(n, network))), (all) => all.every((t) => t.length === 5 && t.join() === all[0]!.join()), 20_000);
    const text = tables[0]!.join('\n');
    for (const t of rr) assert.match(text, new RegExp(`name: "rr\\.${t.Slot}\\.${t.ID}"\\nservice_name: "rr"\\nservice_id: "\\w+"\\nendpoint_ip: "${addressOf(t).replace(/\./g, '\\.')}"`), 'no virtual_ip for dnsrr');
    assert.match(text, /name: "web\.\d\.\w+"\nservice_name: "web"\nservice_id: "\w+"\nvirtual_ip: "10\.0\.1\.\d+"\nendpoint_ip: /);
    assert.doesNotMatch(text, /ingress_ports/, 'ingress ports only in the ingress network\'s records');
    await cli(nodes[0]!, ['service', 'rm', 'rr']);
  });

  it('takes a killed node\'s tasks out of every other node\'s DNS answers and load balancer, and back when it returns', async () => {
    const tasks = await running('web', 3);
    const victim = nodes[2]!;
    const lost = tasks.filter((t) => nodeOf.get(t.NodeID) === victim).map(addressOf);
    assert.equal(lost.length, 1);
    const [from] = tasks.filter((t) => nodeOf.get(t.NodeID) !== victim);
    await victim.kill();
    const answers = (out: string) => [...out.split(/Name:\s/).slice(1).join('\n').matchAll(/Address: (\S+)/g)].map((m) => m[1]!);
    await until('the lost task out of tasks.web', () => execIn(from!, ['nslookup', 'tasks.web']), (r) => r.code === 0 && !answers(r.stdout).includes(lost[0]!), 30_000);
    const r = await execIn(from!, ['sh', '-c', 'for i in $(seq 30); do timeout 3 wget -qO- http://web/www.txt || echo failed; done']);
    assert.ok(!r.stdout.includes('failed'), r.stdout);
    await victim.restart();
    await until('its records back', () => execIn(from!, ['nslookup', 'tasks.web']), (x) => answers(x.stdout).length === 3, 60_000);
  });

  it('never leaves a stale answer after a rapid scale up and down', async () => {
    const svc = (await cli(nodes[0]!, ['service', 'scale', '--detach', 'web=6'])).trim();
    assert.ok(svc.length > 0);
    await cli(nodes[0]!, ['service', 'scale', '--detach', 'web=2']);
    const answers = (out: string) => [...out.split(/Name:\s/).slice(1).join('\n').matchAll(/Address: (\S+)/g)].map((m) => m[1]!).sort();
    /** tasks.web asked from a running task of it, with the running tasks' addresses; undefined until there are two */
    const ask = async () => {
      const ts = await tasksOf('web');
      if (ts.length !== 2 || !ts.every((t) => t.Status.State === 'running')) return undefined;
      const r = await execIn(ts[0]!, ['nslookup', 'tasks.web']);
      // the task as the managers have it, when its container could not be asked
      const task = r.code !== 0 && r.stdout === '' ? ` (task ${JSON.stringify(ts[0])})` : '';
      return { want: ts.map(addressOf).sort(), r, out: `${r.stdout}${r.stderr}${task}` };
    };
    await until('tasks.web as the two tasks', ask, (x) => x !== undefined && answers(x.r.stdout).join() === x.want.join(), 30_000);
    // and it stays so: every answer is the two, none a removed task's; a lookup that got no answer
    // at all (its task's container found stopped, once, in a full run under load) is counted apart
    let unanswered = 0;
    for (let i = 0; i < 10; i++) {
      const x = (await until('two running tasks', ask, (y) => y !== undefined, 30_000))!;
      assert.doesNotMatch(x.out, /NXDOMAIN/, x.out);
      if (answers(x.r.stdout).length === 0) unanswered++;
      else assert.deepEqual(answers(x.r.stdout), x.want, x.out);
    }
    assert.ok(unanswered <= 2, `${unanswered} of 10 lookups unanswered`);
  });

  it('keeps the published port answering on a drained node, its tasks moved', async () => {
    await cli(nodes[0]!, ['service', 'scale', '--detach', 'mesh=2']);
    const before = await running('mesh', 2);
    const drained = nodeOf.get(before[0]!.NodeID)!;
    const id = (await cli(drained, ['info', '--format', '{{.Swarm.NodeID}}'])).trim();
    await cli(nodes[0]!, ['node', 'update', '--availability', 'drain', id]);
    try {
      const moved = await until('the tasks off the drained node', () => tasksOf('mesh'), (ts) => ts.length === 2 && ts.every((t) => t.Status.State === 'running' && t.NodeID !== id), 60_000);
      const hostnames = moved.map((t) => t.Status.ContainerStatus!.ContainerID.slice(0, 12)).sort();
      const client = nodes.find((n) => n !== drained)!;
      const ask = () => client.exec('sh', ['-c', `for i in $(seq 20); do busybox timeout 3 busybox wget -qO- http://${drained.addr}:8081/www.txt || echo failed; done`], { timeoutMs: 60_000 }).trim().split('\n');
      const answered = await until('the drained node answering from the moved tasks', async () => ask(), (a) => a.every((h) => hostnames.includes(h)), 20_000);
      assert.deepEqual([...new Set(answered)].sort(), hostnames);
    } finally {
      await cli(nodes[0]!, ['node', 'update', '--availability', 'active', id]);
    }
  });

  it('gives a task with a health check its records only once it is healthy', async () => {
    await cli(nodes[0]!, ['service', 'create', '--detach', '--name', 'slow', '--network', 'backend', '--health-cmd', 'test -f /ready', '--health-interval', '1s', '--health-retries', '1000', 'busybox', 'sleep', '3600']);
    const [from] = await running('web', 2);
    const [task] = await until('a task starting', () => tasksOf('slow'), (ts) => ts.length === 1 && ts[0]!.Status.State === 'starting' && ts[0]!.NetworksAttachments !== undefined, 60_000);
    const node = nodeOf.get(task!.NodeID)!;
    const container = await until('its container', async () => (await cli(node, ['ps', '-q', '--filter', `label=com.docker.swarm.task.id=${task!.ID}`])).trim(), (id) => id !== '', 30_000);
    // new assignments while it waits (another service's records on its network) do not start it again
    await cli(nodes[0]!, ['service', 'create', '--detach', '--name', 'nudge', '--network', 'backend', 'busybox', 'sleep', '3600']);
    await running('nudge', 1);
    await until('the nudge in tasks.nudge', () => execIn(from!, ['nslookup', 'tasks.nudge']), (r) => r.code === 0, 20_000);
    assert.notEqual((await execIn(from!, ['nslookup', 'tasks.slow'])).code, 0, 'no record before it is healthy');
    const [still] = await tasksOf('slow');
    assert.deepEqual([still?.ID, still?.Status.State], [task!.ID, 'starting'], JSON.stringify(still?.Status));
    await cli(node, ['exec', container, 'touch', '/ready']);
    await running('slow', 1);
    const found = await until('tasks.slow once healthy', () => execIn(from!, ['nslookup', 'tasks.slow']), (r) => r.code === 0 && r.stdout.includes(addressOf(task)), 20_000);
    assert.equal(found.code, 0);
    await cli(nodes[0]!, ['service', 'rm', 'slow', 'nudge']);
  });
});
