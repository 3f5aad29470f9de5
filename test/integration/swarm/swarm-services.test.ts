// Services on a swarm of three berthd nodes (test/helpers/swarm-nodes.ts: n1 the manager, n2 and
// n3 workers), driven as users drive Docker's with the docker CLI: create converging and spread,
// scale, rolling updates one task at a time with their delay, an update that fails and rolls back
// on its own, `service rollback`, drain moving replicated tasks, a global service following a drain
// and nodes that leave and join, placement by constraints and spread preferences, a job to its
// completions, secrets and configs in the task, a berthd restarting under its tasks, a killed
// worker's tasks made again elsewhere, concurrent updates at one version, a stack deployed over the
// three nodes and removed, and bad input in dockerd's words with nothing half-made.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { until } from '../../helpers/until.js';

interface TaskJson {
  ID: string;
  Slot?: number;
  NodeID?: string;
  ServiceID: string;
  DesiredState: string;
  Spec: { ContainerSpec: { Image: string; Args?: string[] } };
  Status: { State: string; Message: string; Err?: string; ContainerStatus?: { ContainerID: string; ExitCode: number } };
}

interface ServiceJson {
  ID: string;
  Version: { Index: number };
  Spec: { Name: string; Mode: Record<string, unknown>; TaskTemplate: { ContainerSpec: { Image: string; Args?: string[] } } };
  PreviousSpec?: unknown;
  UpdateStatus?: { State: string; Message: string };
  ServiceStatus?: { RunningTasks: number; DesiredTasks: number; CompletedTasks: number };
}

async function json<T>(node: SwarmNode, method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }> {
  const res = await node.request(method, urlPath, { ...(body === undefined ? {} : { json: body }), ...(headers !== undefined ? { headers } : {}) });
  return { status: res.status, body: (res.body === '' ? undefined : res.json()) as T };
}

async function cli(node: SwarmNode, args: string[], timeoutMs?: number): Promise<string> {
  const r = await node.docker(args, timeoutMs === undefined ? undefined : { timeoutMs });
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

describe('swarm services on three nodes', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  let n2: SwarmNode;
  let n3: SwarmNode;
  const nodeIds = new Map<string, SwarmNode>();
  let token: string;

  const tasks = async (service: string) => (await json<TaskJson[]>(n1, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service] }))}`)).body;
  const running = async (service: string) => (await tasks(service)).filter((t) => t.DesiredState === 'running' && t.Status.State === 'running');
  const inspect = async (service: string) => (await json<ServiceJson>(n1, 'GET', `/services/${service}`)).body;
  const untilRunning = (service: string, count: number, ok: (ts: TaskJson[]) => boolean = () => true, timeoutMs = 60_000) =>
    until(`${count} running tasks of ${service}`, () => running(service), (ts) => ts.length === count && ok(ts), timeoutMs);

  before(async () => {
    swarm = await startSwarmNodes(3);
    [n1, n2, n3] = swarm.nodes as [SwarmNode, SwarmNode, SwarmNode];
    await Promise.all(swarm.nodes.flatMap((n) => [loadBusybox(n.berthd), loadBusybox(n.berthd, 'busybox:v2')]));
    const out = await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    token = /--token (\S+)/.exec(out)![1]!;
    for (const n of [n2, n3]) await cli(n, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    await until('three ready nodes', () => json<Array<{ ID: string; Status: { State: string; Addr: string } }>>(n1, 'GET', '/nodes'), (r) => r.body.length === 3 && r.body.every((x) => x.Status.State === 'ready'));
    for (const n of swarm.nodes) nodeIds.set((await json<{ Swarm: { NodeID: string } }>(n, 'GET', '/info')).body.Swarm.NodeID, n);
  });
  after(async () => {
    await swarm?.close();
  });

  it('`service create --replicas 3` converges as the CLI waits for it, the tasks spread over the nodes', async () => {
    const out = await cli(n1, ['service', 'create', '--name', 'web', '--replicas', '3', '--update-monitor', '1s', '--stop-grace-period', '1s', 'busybox', 'sleep', '3600'], 120_000);
    assert.match(out, /verify: Service \w+ converged\n$/);
    const ts = await running('web');
    assert.equal(ts.length, 3);
    assert.deepEqual(new Set(ts.map((t) => t.NodeID)).size, 3);
    assert.deepEqual(ts.map((t) => t.Slot).sort(), [1, 2, 3]);
    // each task is a real container on its node, named and labelled as dockerd names them
    for (const t of ts) {
      const node = nodeIds.get(t.NodeID!)!;
      const c = (await json<{ Name: string; State: { Running: boolean }; Config: { Labels: Record<string, string> } }>(node, 'GET', `/containers/${t.Status.ContainerStatus!.ContainerID}/json`)).body;
      assert.equal(c.Name, `/web.${t.Slot}.${t.ID}`);
      assert.equal(c.State.Running, true);
      assert.equal(c.Config.Labels['com.docker.swarm.task.id'], t.ID);
      assert.equal(c.Config.Labels['com.docker.swarm.service.name'], 'web');
    }
    const ls = await cli(n1, ['service', 'ls', '--format', '{{.Name}} {{.Mode}} {{.Replicas}}']);
    assert.equal(ls.trim(), 'web replicated 3/3');
    const ps = (await cli(n1, ['service', 'ps', 'web', '--format', '{{.Name}} {{.DesiredState}} {{.CurrentState}}'])).trim().split('\n');
    assert.equal(ps.length, 3);
    for (const line of ps) assert.match(line, /^web\.[123] Running Running /);
  });

  it('scales up and down', async () => {
    await cli(n1, ['service', 'scale', '--detach', 'web=5']);
    await untilRunning('web', 5);
    await cli(n1, ['service', 'scale', '--detach', 'web=2']);
    await untilRunning('web', 2, (ts) => ts.every((t) => t.Slot! <= 2));
    // the removed slots' tasks go, their containers with them
    await until('tasks of removed slots gone', () => tasks('web'), (ts) => ts.every((t) => t.Slot! <= 2));
  });

  it('`service update --image` rolls one task at a time, with the delay between them', async () => {
    await cli(n1, ['service', 'update', '--detach', '--image', 'busybox:v2', '--update-delay', '2s', '--update-parallelism', '1', 'web']);
    const seen: number[] = [];
    await until(
      'the update to complete',
      async () => {
        const ts = await running('web');
        seen.push(ts.filter((t) => t.Spec.ContainerSpec.Image === 'busybox:v2').length);
        return inspect('web');
      },
      (s) => s.UpdateStatus?.State === 'completed',
      90_000,
    );
    // one at a time: the count of new tasks went 0, 1, 2, never 0 straight to 2
    assert.ok(seen.includes(1), `new tasks seen: ${seen.join(',')}`);
    const svc = await inspect('web');
    assert.equal(svc.UpdateStatus?.Message, 'update completed');
    assert.ok(svc.PreviousSpec !== undefined);
    assert.ok((await running('web')).every((t) => t.Spec.ContainerSpec.Image === 'busybox:v2'));
  });

  it('`service rollback` goes back to the previous spec', async () => {
    await cli(n1, ['service', 'rollback', '--detach', 'web']);
    await until('the rollback to complete', () => inspect('web'), (s) => s.UpdateStatus?.State === 'rollback_completed', 90_000);
    await untilRunning('web', 2, (ts) => ts.every((t) => t.Spec.ContainerSpec.Image === 'busybox:latest'));
  });

  it('an update whose tasks fail rolls back on its own under --update-failure-action rollback', async () => {
    await cli(n1, ['service', 'update', '--detach', '--args', 'false', '--update-failure-action', 'rollback', '--update-monitor', '5s', 'web']);
    const svc = await until('the automatic rollback', () => inspect('web'), (s) => s.UpdateStatus?.State === 'rollback_completed', 90_000);
    assert.deepEqual(svc.Spec.TaskTemplate.ContainerSpec.Args, ['sleep', '3600']);
    await untilRunning('web', 2, (ts) => ts.every((t) => t.Spec.ContainerSpec.Args?.[0] === 'sleep'));
  });

  it('two clients updating at one version: one wins, the other gets "update out of sequence"', async () => {
    const svc = await inspect('web');
    const spec = (replicas: number) => ({ ...svc.Spec, Mode: { Replicated: { Replicas: replicas } } });
    const [a, b] = await Promise.all([json<unknown>(n1, 'POST', `/services/${svc.ID}/update?version=${svc.Version.Index}`, spec(3)), json<{ message: string }>(n1, 'POST', `/services/${svc.ID}/update?version=${svc.Version.Index}`, spec(4))]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [200, 500]);
    const loser = (a.status === 500 ? a : b).body as { message: string };
    assert.equal(loser.message, 'rpc error: code = Unknown desc = update out of sequence');
  });

  it('drain moves a replicated service’s tasks off the node', async () => {
    const ts = await untilRunning('web', (await inspect('web')).Spec.Mode.Replicated ? ((await inspect('web')).Spec.Mode.Replicated as { Replicas: number }).Replicas : 0);
    const target = ts[0]!.NodeID!;
    await cli(n1, ['node', 'update', '--availability', 'drain', target]);
    await untilRunning('web', ts.length, (now) => now.every((t) => t.NodeID !== target));
    await cli(n1, ['node', 'update', '--availability', 'active', target]);
  });

  it('a global service runs on every node, follows a drain and comes back', async () => {
    await cli(n1, ['service', 'create', '--detach', '--name', 'agent', '--mode', 'global', '--stop-grace-period', '1s', 'busybox', 'sleep', '3600']);
    await untilRunning('agent', 3);
    const n3Id = [...nodeIds].find(([, n]) => n === n3)![0];
    await cli(n1, ['node', 'update', '--availability', 'drain', n3Id]);
    await untilRunning('agent', 2, (ts) => ts.every((t) => t.NodeID !== n3Id));
    await cli(n1, ['node', 'update', '--availability', 'active', n3Id]);
    await untilRunning('agent', 3);
    // a node that leaves takes its task's container along; one that joins gets a task
    await cli(n3, ['swarm', 'leave']);
    await cli(n1, ['node', 'rm', '--force', n3Id]);
    nodeIds.delete(n3Id);
    await untilRunning('agent', 2, (ts) => ts.every((t) => t.NodeID !== n3Id));
    assert.deepEqual((await json<unknown[]>(n3, 'GET', `/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ label: ['com.docker.swarm.service.name=agent'] }))}`)).body, []);
    await cli(n3, ['swarm', 'join', '--token', token, `${n1.addr}:2377`]);
    const joined = (await json<{ Swarm: { NodeID: string } }>(n3, 'GET', '/info')).body.Swarm.NodeID;
    nodeIds.set(joined, n3);
    await untilRunning('agent', 3, (ts) => ts.some((t) => t.NodeID === joined));
  });

  it('places by constraint and spreads by preference', async () => {
    const n2Id = [...nodeIds].find(([, n]) => n === n2)![0];
    await cli(n1, ['node', 'update', '--label-add', 'zone=a', n2Id]);
    await cli(n1, ['service', 'create', '--detach', '--name', 'pinned', '--replicas', '2', '--constraint', 'node.labels.zone==a', 'busybox', 'sleep', '3600']);
    await untilRunning('pinned', 2, (ts) => ts.every((t) => t.NodeID === n2Id));
    await cli(n1, ['service', 'create', '--detach', '--name', 'nowhere', '--constraint', 'node.labels.zone==z', 'busybox', 'sleep', '3600']);
    const pending = await until('a pending task', () => tasks('nowhere'), (ts) => ts.length === 1 && ts[0]!.Status.State === 'pending' && ts[0]!.Status.Err !== undefined);
    assert.equal(pending[0]!.Status.Err, 'no suitable node (scheduling constraints not satisfied on 3 nodes)');
    await cli(n1, ['service', 'create', '--detach', '--name', 'spread', '--replicas', '4', '--placement-pref', 'spread=node.labels.zone', 'busybox', 'sleep', '3600']);
    const spread = await untilRunning('spread', 4);
    // two groups: n2 (zone=a) and the nodes without the label: half the tasks each
    assert.equal(spread.filter((t) => t.NodeID === n2Id).length, 2);
    await cli(n1, ['service', 'rm', 'pinned', 'nowhere', 'spread']);
  });

  it('a replicated job runs to its TotalCompletions', async () => {
    await cli(n1, ['service', 'create', '--detach', '--name', 'job', '--mode', 'replicated-job', '--replicas', '3', '--max-concurrent', '2', 'busybox', 'true']);
    await until('three completed tasks', () => tasks('job'), (ts) => ts.filter((t) => t.Status.State === 'complete').length === 3, 60_000);
    const status = (await json<ServiceJson[]>(n1, 'GET', `/services?status=true&filters=${encodeURIComponent(JSON.stringify({ name: ['job'] }))}`)).body[0]!.ServiceStatus;
    assert.deepEqual(status, { RunningTasks: 0, DesiredTasks: 0, CompletedTasks: 3 });
    await cli(n1, ['service', 'rm', 'job']);
  });

  it('delivers a secret on a tmpfs at /run/secrets and a config at its target, with their modes and owners', async () => {
    const secret = (await json<{ ID: string }>(n1, 'POST', '/secrets/create', { Name: 'pw', Data: Buffer.from('s3cret').toString('base64') })).body.ID;
    const config = (await json<{ ID: string }>(n1, 'POST', '/configs/create', { Name: 'conf', Data: Buffer.from('key=value\n').toString('base64') })).body.ID;
    assert.ok(secret && config);
    await cli(n1, ['service', 'create', '--detach', '--name', 'files', '--secret', 'source=pw,mode=0400,uid=1000,gid=1001', '--config', 'source=conf,target=/etc/app.conf', 'busybox', 'sleep', '3600']);
    const [t] = await untilRunning('files', 1);
    const node = nodeIds.get(t!.NodeID!)!;
    const id = t!.Status.ContainerStatus!.ContainerID;
    const sh = async (cmd: string) => (await cli(node, ['exec', id, 'sh', '-c', cmd])).trim();
    assert.equal(await sh('cat /run/secrets/pw'), 's3cret');
    assert.equal(await sh('stat -c "%a %u %g" /run/secrets/pw'), '400 1000 1001');
    assert.equal(await sh('cat /etc/app.conf'), 'key=value');
    assert.equal(await sh('stat -c "%a" /etc/app.conf'), '444');
    assert.match(await sh('grep " /run/secrets/pw " /proc/mounts'), / tmpfs ro,/);
    // a secret in use is not removed
    const del = await json<{ message: string }>(n1, 'DELETE', `/secrets/${secret}`);
    assert.deepEqual([del.status, del.body.message], [400, "rpc error: code = InvalidArgument desc = secret 'pw' is in use by the following service: files"]);
    await cli(n1, ['service', 'rm', 'files']);
    await until('the secret to be removable', () => json<unknown>(n1, 'DELETE', `/secrets/${secret}`), (r) => r.status === 204);
  });

  it('a worker whose berthd restarts keeps its tasks running in the same containers', async () => {
    const ts = await running('agent');
    const onN2 = ts.find((t) => nodeIds.get(t.NodeID!) === n2)!;
    await n2.restart();
    const after = await until('the task still running after the restart', () => tasks('agent'), (now) => now.some((t) => t.ID === onN2.ID && t.Status.State === 'running'));
    assert.equal(after.find((t) => t.ID === onN2.ID)!.Status.ContainerStatus!.ContainerID, onN2.Status.ContainerStatus!.ContainerID);
    assert.equal((await running('agent')).filter((t) => t.NodeID === onN2.NodeID).length, 1);
    const c = (await json<{ State: { Running: boolean } }>(n2, 'GET', `/containers/${onN2.Status.ContainerStatus!.ContainerID}/json`)).body;
    assert.equal(c.State.Running, true);
  });

  it('expands a templated config for its task, gives it the log driver of its spec, and logs service events', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const data = Buffer.from('service={{.Service.Name}} mode={{env "MODE"}}\n').toString('base64');
    await json<{ ID: string }>(n1, 'POST', '/configs/create', { Name: 'tmpl', Data: data, Templating: { Name: 'golang' } });
    await cli(n1, ['service', 'create', '--detach', '--name', 'templated', '--env', 'MODE=prod', '--config', 'source=tmpl,target=/app.conf', '--log-driver', 'json-file', '--log-opt', 'max-size=1m', 'busybox', 'sleep', '3600']);
    const [t] = await untilRunning('templated', 1);
    const node = nodeIds.get(t!.NodeID!)!;
    assert.equal((await cli(node, ['exec', t!.Status.ContainerStatus!.ContainerID, 'cat', '/app.conf'])).trim(), 'service=templated mode=prod');
    // the task spec's log driver is the container's
    const logConfig = (await json<{ HostConfig: { LogConfig: unknown } }>(node, 'GET', `/containers/${t!.Status.ContainerStatus!.ContainerID}/json`)).body.HostConfig.LogConfig;
    assert.deepEqual(logConfig, { Type: 'json-file', Config: { 'max-size': '1m' } });
    await cli(n1, ['service', 'rm', 'templated']);
    const events = await cli(n1, ['events', '--since', String(since), '--until', String(Math.floor(Date.now() / 1000) + 1), '--filter', 'type=service', '--format', '{{.Action}} {{.Actor.Attributes.name}} {{.Scope}}']);
    assert.deepEqual(events.trim().split('\n').filter((l) => l.endsWith('templated swarm')), ['create templated swarm', 'remove templated swarm']);
  });

  it('a killed worker’s tasks are made again on the other nodes within 30 s', async () => {
    await cli(n1, ['service', 'scale', '--detach', 'web=4']);
    const before = await untilRunning('web', 4, (ts) => ts.some((t) => nodeIds.get(t.NodeID!) !== n1));
    // a worker running one of them, killed with its containers as a machine going down
    const victimId = before.find((t) => nodeIds.get(t.NodeID!) !== n1)!.NodeID!;
    const victim = nodeIds.get(victimId)!;
    await victim.kill();
    victim.killContainers();
    await untilRunning('web', 4, (ts) => ts.every((t) => t.NodeID !== victimId), 30_000);
    await victim.start();
  });

  it('deploys a stack over the three nodes: its services come up, `stack ps` lists them, `stack rm` takes it all away', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-stack-'));
    try {
      writeFileSync(path.join(dir, 'pw.txt'), 'stack-secret\n');
      writeFileSync(path.join(dir, 'app.conf'), 'stack-config\n');
      writeFileSync(
        path.join(dir, 'compose.yml'),
        ['version: "3.8"', 'services:', '  front:', '    image: busybox', '    command: ["sleep", "3600"]', '    deploy:', '      replicas: 3', '    secrets: [pw]', '  back:', '    image: busybox', '    command: ["sleep", "3600"]', '    deploy:', '      mode: global', '    configs:', '      - source: conf', '        target: /app.conf', 'secrets:', '  pw:', '    file: ./pw.txt', 'configs:', '  conf:', '    file: ./app.conf', ''].join('\n'),
      );
      await cli(n1, ['stack', 'deploy', '--resolve-image', 'never', '-c', path.join(dir, 'compose.yml'), 'st']);
      const front = await untilRunning('st_front', 3);
      const back = await untilRunning('st_back', 3);
      assert.equal(new Set(back.map((t) => t.NodeID)).size, 3);
      const ps = (await cli(n1, ['stack', 'ps', 'st', '--format', '{{.Name}} {{.CurrentState}}'])).trim().split('\n');
      assert.equal(ps.length, 6);
      assert.ok(ps.every((l) => / Running /.test(l)), ps.join('\n'));
      const t = front[0]!;
      assert.equal((await cli(nodeIds.get(t.NodeID!)!, ['exec', t.Status.ContainerStatus!.ContainerID, 'cat', '/run/secrets/pw'])).trim(), 'stack-secret');
      await cli(n1, ['stack', 'rm', 'st']);
      await until('the stack gone', async () => [...(await json<unknown[]>(n1, 'GET', '/services')).body, ...(await json<unknown[]>(n1, 'GET', `/secrets?filters=${encodeURIComponent(JSON.stringify({ label: ['com.docker.stack.namespace=st'] }))}`)).body], (all) => all.filter((x) => JSON.stringify(x).includes('"st_')).length === 0, 60_000);
      for (const n of swarm.nodes) await until(`the stack's containers gone from ${n.name}`, async () => (await json<unknown[]>(n, 'GET', `/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ label: ['com.docker.stack.namespace=st'] }))}`)).body, (cs) => cs.length === 0, 60_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad input in dockerd’s words, making nothing', async () => {
    const before = (await json<ServiceJson[]>(n1, 'GET', '/services')).body.length;
    const create = (spec: unknown) => json<{ message: string }>(n1, 'POST', '/services/create', spec);
    const noImage = await create({ Name: 'bad', TaskTemplate: { ContainerSpec: {} } });
    assert.deepEqual([noImage.status, noImage.body.message], [400, 'rpc error: code = InvalidArgument desc = ContainerSpec: image reference must be provided']);
    const taken = await create({ Name: 'web', TaskTemplate: { ContainerSpec: { Image: 'busybox' } } });
    assert.deepEqual([taken.status, taken.body.message], [409, 'rpc error: code = AlreadyExists desc = name conflicts with an existing object: service web already exists']);
    const unknownSecret = await create({ Name: 'bad', TaskTemplate: { ContainerSpec: { Image: 'busybox', Secrets: [{ SecretID: 'nosuchid', SecretName: 'nosuch', File: { Name: 'nosuch', UID: '0', GID: '0', Mode: 292 } }] } } });
    assert.deepEqual([unknownSecret.status, unknownSecret.body.message], [400, 'rpc error: code = InvalidArgument desc = secret not found: nosuch']);
    const constraint = await create({ Name: 'bad', TaskTemplate: { ContainerSpec: { Image: 'busybox' }, Placement: { Constraints: ['node.role'] } } });
    assert.deepEqual([constraint.status, constraint.body.message], [500, 'rpc error: code = Unknown desc = constraint expected one operator from ==, !=']);
    const memory = await n1.docker(['service', 'create', '--name', 'bad', '--limit-memory', '1k', 'busybox', 'true']);
    assert.match(memory.stderr, /rpc error: code = InvalidArgument desc = invalid memory value 1024: Must be at least 4MiB/);
    const cliSecret = await n1.docker(['service', 'create', '--name', 'bad', '--secret', 'nosuch', 'busybox', 'true']);
    assert.match(cliSecret.stderr, /secret not found: nosuch/);
    assert.equal((await json<ServiceJson[]>(n1, 'GET', '/services')).body.length, before);
    // an update may neither rename a service nor change its mode; a rollback needs a previous spec
    const web = await inspect('web');
    const update = (spec: unknown, query = '') => json<{ message: string }>(n1, 'POST', `/services/${web.ID}/update?version=${web.Version.Index}${query}`, spec);
    const renamed = await update({ ...web.Spec, Name: 'other' });
    assert.deepEqual([renamed.status, renamed.body.message], [501, 'rpc error: code = Unimplemented desc = renaming services is not supported']);
    const global = await update({ ...web.Spec, Mode: { Global: {} } });
    assert.deepEqual([global.status, global.body.message], [501, 'rpc error: code = Unimplemented desc = service mode change is not allowed']);
    const fresh = (await json<{ ID: string }>(n1, 'POST', '/services/create', { Name: 'fresh', TaskTemplate: { ContainerSpec: { Image: 'busybox', Args: ['sleep', '60'] } } })).body.ID;
    const freshVersion = (await inspect(fresh)).Version.Index;
    const noPrevious = await json<{ message: string }>(n1, 'POST', `/services/${fresh}/update?version=${freshVersion}&rollback=previous`, {});
    assert.deepEqual([noPrevious.status, noPrevious.body.message], [400, `rpc error: code = FailedPrecondition desc = service ${fresh} does not have a previous spec`]);
    const noVersion = await json<{ message: string }>(n1, 'POST', `/services/${fresh}/update`, {});
    assert.equal(noVersion.status, 400);
    await cli(n1, ['service', 'rm', 'fresh']);
    // a missing image: the service is made, its tasks rejected on their nodes
    await cli(n1, ['service', 'create', '--detach', '--name', 'missing', 'busybox:nosuch', 'true']);
    const rejected = await until('a rejected task', () => tasks('missing'), (ts) => ts.some((t) => t.Status.State === 'rejected'));
    assert.equal(rejected.find((t) => t.Status.State === 'rejected')!.Status.Err, 'No such image: busybox:nosuch');
    await cli(n1, ['service', 'rm', 'missing']);
  });
});
