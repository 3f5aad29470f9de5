// Service and task logs on a swarm of three berthd nodes (test/helpers/swarm-nodes.ts: n1 the
// manager, n2 and n3 workers), read at the manager from the nodes that run the tasks, as users
// read them with the docker CLI: `service logs` naming each line's task and node as the CLI
// formats it (it resolves the node ID in the details to the node's name), `--raw`, `--timestamps`,
// `--tail`, a task's logs by its ID, `-f` following until it has shown every node's lines and a
// line of a task that replaced a killed one; the stream's bytes (stdcopy frames, the details, no
// Content-Type; raw under a TTY); and dockerd 20.10's answers to bad input (checked on the
// reference engine): 500 for no stream or a bad tail or since, 404 for an unknown service or task,
// an in-band error for a task never scheduled or a node that can't be reached, a worker's 503. A
// worker's own port gives its tasks' logs to managers only.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface TaskJson {
  ID: string;
  Slot: number;
  NodeID: string;
  DesiredState: string;
  Status: { State: string; ContainerStatus?: { ContainerID: string } };
}

const WORKER_NOT_MANAGER = "This node is not a swarm manager. Worker nodes can't be used to view or modify cluster state. Please run this command on a manager node or promote the current node to a manager.";
const TIME = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z`;

/** A call to a node's task-logs port (node ID as the server's name) with the given certificate files (none: no certificate); prints status and body. */
const TASK_LOGS_CALL = `
import https from 'node:https';
import { readFileSync } from 'node:fs';
const [addr, servername, body, ca, cert, key] = process.argv.slice(1);
const [host, port] = addr.split(':');
const opts = { host, port: Number(port), path: '/v1/task-logs', method: 'POST', agent: false, servername, ca: readFileSync(ca), rejectUnauthorized: true, headers: { 'content-type': 'application/json' } };
if (cert) Object.assign(opts, { cert: readFileSync(cert), key: readFileSync(key) });
const req = https.request(opts, (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body: b }))); });
req.on('error', (e) => console.log(JSON.stringify({ error: e.code ?? e.message })));
req.end(body);
`;

async function json<T>(node: SwarmNode, method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await node.request(method, urlPath, body === undefined ? {} : { json: body });
  return { status: res.status, body: (res.body === '' ? undefined : res.json()) as T };
}

async function cli(node: SwarmNode, args: string[], timeoutMs?: number): Promise<{ stdout: string; stderr: string }> {
  const r = await node.docker(args, timeoutMs === undefined ? undefined : { timeoutMs });
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r;
}

/** The response's head and its body's bytes, as they came. */
function rawGet(node: SwarmNode, urlPath: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath: node.socket, path: urlPath, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${urlPath} timed out`)));
    req.on('error', reject);
  });
}

/** stdcopy frames: [stream, payload]. */
function frames(body: Buffer): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (let at = 0; at < body.length; ) {
    const size = body.readUInt32BE(at + 4);
    assert.deepEqual([...body.subarray(at + 1, at + 4)], [0, 0, 0]);
    out.push([body[at]!, body.subarray(at + 8, at + 8 + size).toString()]);
    at += 8 + size;
  }
  return out;
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

describe('swarm service logs on three nodes', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  let n2: SwarmNode;
  /** node ID → its name (n1…), which the CLI prints */
  const nodeNames = new Map<string, string>();
  const nodesById = new Map<string, SwarmNode>();
  let web: TaskJson[];

  const tasks = async (service: string) => (await json<TaskJson[]>(n1, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service] }))}`)).body;
  const running = async (service: string) => (await tasks(service)).filter((t) => t.DesiredState === 'running' && t.Status.State === 'running');
  /** The CLI's name of a task's lines: `web.<slot>.<task ID, 12>@<node name>`. */
  const prefix = (t: TaskJson) => `web.${t.Slot}.${t.ID.slice(0, 12)}@${nodeNames.get(t.NodeID)}`;

  before(async () => {
    swarm = await startSwarmNodes(3);
    [n1, n2] = swarm.nodes as [SwarmNode, SwarmNode, SwarmNode];
    await Promise.all(swarm.nodes.map((n) => loadBusybox(n.berthd)));
    const out = (await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr])).stdout;
    const token = /--token (\S+)/.exec(out)![1]!;
    for (const n of swarm.nodes.slice(1)) await cli(n, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    await until('three ready nodes', () => json<Array<{ Status: { State: string } }>>(n1, 'GET', '/nodes'), (r) => r.body.length === 3 && r.body.every((x) => x.Status.State === 'ready'));
    // the nodes share this machine's hostname: names tell them apart in the CLI's output
    for (const n of swarm.nodes) {
      const id = (await json<{ Swarm: { NodeID: string } }>(n, 'GET', '/info')).body.Swarm.NodeID;
      const node = (await json<{ Version: { Index: number }; Spec: Record<string, unknown> }>(n1, 'GET', `/nodes/${id}`)).body;
      assert.equal((await json(n1, 'POST', `/nodes/${id}/update?version=${node.Version.Index}`, { ...node.Spec, Name: n.name })).status, 200);
      nodeNames.set(id, n.name);
      nodesById.set(id, n);
    }
    // a line on each stream, then, once both are surely in, a last one
    const script = 'echo "hello $(hostname)"; echo "oops $(hostname)" >&2; sleep 1; echo "ready $(hostname)"; exec sleep 3600';
    await cli(n1, ['service', 'create', '--name', 'web', '--replicas', '3', '--restart-delay', '1s', '--stop-grace-period', '1s', 'busybox', 'sh', '-c', script], 120_000);
    web = await until('three running tasks of web, one on each node', () => running('web'), (ts) => ts.length === 3 && new Set(ts.map((t) => t.NodeID)).size === 3, 60_000);
    // each task's last line is written
    await until('every task to say it is ready', () => n1.docker(['service', 'logs', '--raw', 'web']), (r) => lines(r.stdout).filter((l) => l.startsWith('ready ')).length === 3, 20_000);
  });
  after(async () => {
    await swarm?.close();
  });

  it('`service logs` shows every task\'s lines, from each node, named as the CLI names them', async () => {
    const { stdout, stderr } = await cli(n1, ['service', 'logs', 'web']);
    assert.equal(lines(stdout).length, 6, stdout);
    assert.equal(lines(stderr).length, 3, stderr);
    for (const t of web) {
      assert.match(stdout, new RegExp(`^${prefix(t)}    \\| hello \\w{12}$`, 'm'));
      assert.match(stdout, new RegExp(`^${prefix(t)}    \\| ready \\w{12}$`, 'm'));
      assert.match(stderr, new RegExp(`^${prefix(t)}    \\| oops \\w{12}$`, 'm'));
    }
    assert.deepEqual(new Set(web.map((t) => nodeNames.get(t.NodeID))), new Set(['n1', 'n2', 'n3']));
  });

  it('`--raw`, `--timestamps` and `--tail 1`', async () => {
    const raw = await cli(n1, ['service', 'logs', '--raw', 'web']);
    assert.deepEqual(lines(raw.stdout).map((l) => l.replace(/ \w{12}$/, '')).sort(), ['hello', 'hello', 'hello', 'ready', 'ready', 'ready']);
    assert.deepEqual(lines(raw.stderr).map((l) => l.replace(/ \w{12}$/, '')), ['oops', 'oops', 'oops']);

    const stamped = await cli(n1, ['service', 'logs', '--timestamps', 'web']);
    for (const l of lines(stamped.stdout)) assert.match(l, new RegExp(`^${TIME} web\\.[123]\\.\\w{12}@n[123]    \\| (hello|ready) \\w{12}$`));

    // the last entry of each task, both streams counted
    const tail = await cli(n1, ['service', 'logs', '--tail', '1', 'web']);
    assert.equal(lines(tail.stdout).length, 3, tail.stdout);
    for (const t of web) assert.match(tail.stdout, new RegExp(`^${prefix(t)}    \\| ready \\w{12}$`, 'm'));
    assert.equal(tail.stderr, '');
  });

  it("a task's logs by its ID", async () => {
    const t = web.find((x) => nodeNames.get(x.NodeID) === 'n3')!;
    const { stdout, stderr } = await cli(n1, ['service', 'logs', t.ID]);
    assert.deepEqual(
      lines(stdout).map((l) => l.replace(/ \w{12}$/, '')),
      [`${prefix(t)}    | hello`, `${prefix(t)}    | ready`],
    );
    assert.match(stderr, new RegExp(`^${prefix(t)}    \\| oops \\w{12}\\n$`));
  });

  it('the stream as dockerd frames it: one message a frame, the details sorted, no Content-Type', async () => {
    const svc = (await json<{ ID: string }>(n1, 'GET', '/services/web')).body;
    const r = await rawGet(n1, '/v1.41/services/web/logs?stdout=1&stderr=1&details=1&timestamps=1&tail=1');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], undefined);
    const got = frames(r.body);
    assert.equal(got.length, 3);
    for (const [stream, payload] of got) {
      assert.equal(stream, 1);
      const m = new RegExp(`^${TIME} com\\.docker\\.swarm\\.node\\.id=(\\w+),com\\.docker\\.swarm\\.service\\.id=(\\w+),com\\.docker\\.swarm\\.task\\.id=(\\w+) ready \\w{12}\\n$`).exec(payload);
      assert.ok(m, payload);
      assert.equal(m[2], svc.ID);
      assert.equal(web.find((t) => t.ID === m[3])?.NodeID, m[1]);
    }
    // no details, no time: the line alone
    const plain = frames((await rawGet(n1, '/services/web/logs?stderr=1')).body);
    assert.deepEqual(plain.map(([s, p]) => [s, p.replace(/ \w{12}\n$/, '')]), [
      [2, 'oops'],
      [2, 'oops'],
      [2, 'oops'],
    ]);
  });

  it("a worker's port gives its tasks' logs to managers, and to no one else", () => {
    const [n2Id] = [...nodeNames].find(([, name]) => name === 'n2')!;
    const n3 = swarm.nodes[2]!;
    const t = web.find((x) => x.NodeID === n2Id)!;
    const certs = (n: SwarmNode) => path.join(n.dataRoot, 'swarm', 'certificates');
    const ca = path.join(certs(n1), 'swarm-root-ca.crt');
    const run = (cert?: SwarmNode) =>
      JSON.parse(n3.exec(process.execPath, ['--input-type=module', '-e', TASK_LOGS_CALL, `${n2.addr}:2377`, n2Id, JSON.stringify({ taskId: t.ID, stdout: true, stderr: false, follow: false }), ca, ...(cert === undefined ? [] : [path.join(certs(cert), 'swarm-node.crt'), path.join(certs(cert), 'swarm-node.key')])])) as { status: number; body: string };
    const none = run();
    assert.deepEqual([none.status, JSON.parse(none.body).kind], [500, 'unauthorized']);
    const worker = run(n3);
    assert.deepEqual([worker.status, JSON.parse(worker.body).kind], [500, 'forbidden']);
    const manager = run(n1);
    assert.equal(manager.status, 200);
    const entries = lines(manager.body).map((l) => JSON.parse(l) as { stream: string; timeNs: string; data: string });
    assert.deepEqual(
      entries.map((e) => [e.stream, Buffer.from(e.data, 'base64').toString().replace(/ \w{12}\n$/, '')]),
      [
        ['stdout', 'hello'],
        ['stdout', 'ready'],
      ],
    );
  });

  it('`-f` follows every node, and picks up the task that replaces a killed one', async () => {
    const p = spawn('docker', ['service', 'logs', '-f', 'web'], { env: { ...process.env, ...n1.dockerEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until('hello from the three tasks', () => out, (o) => web.every((t) => o.includes(`${prefix(t)}    | hello `)), 20_000);
      // a task on a worker dies: its replacement's lines come through the same stream
      const victim = web.find((t) => nodeNames.get(t.NodeID) === 'n2')!;
      await cli(nodesById.get(victim.NodeID)!, ['kill', victim.Status.ContainerStatus!.ContainerID]);
      const replacement = await until('a new task in slot ' + victim.Slot, () => running('web'), (ts) => ts.some((t) => t.Slot === victim.Slot && t.ID !== victim.ID), 60_000);
      const fresh = replacement.find((t) => t.Slot === victim.Slot)!;
      await until("the new task's hello", () => out, (o) => o.includes(`${prefix(fresh)}    | hello `), 20_000);
      assert.equal(p.exitCode, null, 'docker service logs -f ended');
    } finally {
      p.kill('SIGKILL');
    }
    // the killed task's lines stay with its container, as dockerd's: four tasks have said hello
    const { stdout } = await cli(n1, ['service', 'logs', 'web']);
    assert.equal(lines(stdout).filter((l) => / \| hello /.test(l)).length, 4, stdout);
  });

  it("answers bad input in dockerd's words, before the stream", async () => {
    const cases: Array<[path: string, status: number, message: string]> = [
      ['/services/web/logs', 500, 'Bad parameters: you must choose at least one stream'],
      ['/services/nosuch/logs', 500, 'Bad parameters: you must choose at least one stream'],
      ['/services/nosuch/logs?stdout=1', 404, 'service nosuch not found'],
      ['/tasks/nosuch/logs?stdout=1', 404, 'task nosuch not found'],
      ['/services/web/logs?stdout=1&tail=x', 500, 'tail value must be a positive integer or "all"'],
      ['/services/web/logs?stdout=1&tail=-1', 500, 'negative tail values not supported'],
      ['/services/web/logs?stdout=1&since=abc', 500, 'could not parse since timestamp: strconv.ParseInt: parsing "abc": invalid syntax'],
      ['/services/web/logs?stdout=1&since=1.5x', 500, 'could not parse since timestamp: strconv.ParseInt: parsing "5x": invalid syntax'],
    ];
    for (const [path, status, message] of cases) {
      const r = await json<{ message: string }>(n1, 'GET', path);
      assert.deepEqual([r.status, r.body], [status, { message }], path);
    }
    const onWorker = await json<{ message: string }>(n2, 'GET', '/services/web/logs?stdout=1');
    assert.deepEqual([onWorker.status, onWorker.body], [503, { message: WORKER_NOT_MANAGER }]);
    const missing = await n1.docker(['service', 'logs', 'nosuch']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such task or service: nosuch/);
  });

  it('a task never scheduled: an in-band error for it, nothing for its service', async () => {
    await cli(n1, ['service', 'create', '--detach', '--name', 'nowhere', '--constraint', 'node.labels.none==here', 'busybox', 'sleep', '3600']);
    const [t] = await until('its pending task', () => tasks('nowhere'), (ts) => ts.length === 1 && ts[0]!.Status.State === 'pending');
    const reason = `rpc error: code = Unknown desc = warning: incomplete log stream. some logs could not be retrieved for the following reasons: task ${t!.ID} has not been scheduled`;
    const r = await rawGet(n1, `/tasks/${t!.ID}/logs?stdout=1`);
    assert.equal(r.status, 200);
    assert.deepEqual(frames(r.body), [[3, `Error grabbing logs: ${reason}\n`]]);
    assert.deepEqual(frames((await rawGet(n1, '/services/nowhere/logs?stdout=1')).body), []);
    const viaCli = await n1.docker(['service', 'logs', t!.ID]);
    assert.equal(viaCli.code, 1);
    assert.equal(viaCli.stderr.trim(), `error from daemon in stream: Error grabbing logs: ${reason}`);
  });

  it('a TTY service: raw bytes, which the CLI shows only with --raw', async () => {
    await cli(n1, ['service', 'create', '--name', 'tty', '--tty', '--replicas', '1', 'busybox', 'sh', '-c', 'echo tty-out; exec sleep 3600'], 120_000);
    const [t] = await until('its task to print', () => running('tty'), (ts) => ts.length === 1);
    const r = await until('its line', () => rawGet(n1, '/services/tty/logs?stdout=1&details=1'), (x) => x.body.length > 0);
    assert.equal(r.body.toString(), `com.docker.swarm.node.id=${t!.NodeID},com.docker.swarm.service.id=${(await json<{ ID: string }>(n1, 'GET', '/services/tty')).body.ID},com.docker.swarm.task.id=${t!.ID} tty-out\r\n`);
    const pretty = await n1.docker(['service', 'logs', 'tty']);
    assert.equal(pretty.code, 1);
    assert.match(pretty.stderr, /tty service logs only supported with --raw/);
    assert.equal((await cli(n1, ['service', 'logs', '--raw', 'tty'])).stdout, 'tty-out\r\n');
  });

  // last: the node cut off may be marked down and its tasks moved
  it('a node that cannot be reached: the others\' lines, then the in-band error naming it', async () => {
    const n3 = swarm.nodes[2]!;
    const [n3Id] = [...nodeNames].find(([, name]) => name === 'n3')!;
    // hello and ready from each task that ran elsewhere, the killed one's too
    const elsewhere = (await tasks('web')).filter((t) => t.NodeID !== n3Id && t.Status.ContainerStatus !== undefined);
    swarm.isolate(n3, [n1]);
    try {
      const got = frames((await rawGet(n1, '/services/web/logs?stdout=1')).body);
      const last = got.pop()!;
      assert.deepEqual(last, [3, `Error grabbing logs: rpc error: code = Unknown desc = warning: incomplete log stream. some logs could not be retrieved for the following reasons: node ${n3Id} is not available\n`]);
      const said = got.map(([stream, line]) => `${stream} ${line.replace(/ \w{12}\n$/, '')}`).sort();
      assert.deepEqual(said, elsewhere.flatMap(() => ['1 hello', '1 ready']).sort());
    } finally {
      swarm.heal(n3);
    }
  });
});
