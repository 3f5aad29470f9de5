// docker exec through the real CLI and the raw API, in real runc containers: exit codes, output
// streams, stdin, user/dir/env, a terminal, detached execs, detach keys as docker-py sends them, a
// client that goes away, the instance's inspect and lifetime, its errors in dockerd's words, and
// its events.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { frame } from '../../../src/api/streams/mux-writer.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { inTerminal } from '../../helpers/terminal.js';
import { until } from '../../helpers/until.js';

interface ExecJson {
  ID: string;
  Running: boolean;
  ExitCode: number | null;
  ProcessConfig: { tty: boolean; entrypoint: string; arguments: string[]; privileged: boolean; user?: string };
  OpenStdin: boolean;
  OpenStdout: boolean;
  OpenStderr: boolean;
  CanRemove: boolean;
  ContainerID: string;
  DetachKeys: string;
  Pid: number;
}

describe('docker exec', () => {
  let d: Berthd;
  let id: string;
  before(async () => {
    d = await startWithBusybox();
    id = (await d.docker(['run', '-d', '--name', 'box', 'busybox', 'sleep', '3000'])).stdout.trim();
    assert.match(id, /^[0-9a-f]{64}$/);
  });
  after(async () => {
    await teardown(d);
  });

  const createExec = async (body: Record<string, unknown>, container = 'box'): Promise<string> => {
    const r = await d.request('POST', `/containers/${container}/exec`, { json: body });
    assert.equal(r.status, 201, r.body);
    return (r.json() as { Id: string }).Id;
  };
  const inspectExec = async (execId: string): Promise<ExecJson> => {
    const r = await d.request('GET', `/exec/${execId}/json`);
    assert.equal(r.status, 200, r.body);
    return r.json() as ExecJson;
  };
  test('exit codes: the process\'s own, 127 for a missing command, 126 for one that cannot run', async () => {
    assert.equal((await d.docker(['exec', 'box', 'true'])).code, 0);
    assert.equal((await d.docker(['exec', 'box', 'sh', '-c', 'exit 3'])).code, 3);
    const missing = await d.docker(['exec', 'box', 'nosuch']);
    assert.equal(missing.code, 127);
    assert.match(missing.stdout, /OCI runtime exec failed: .*exec: "nosuch": executable file not found in \$PATH: unknown/);
    // runc's own words are not passed on a second time
    assert.doesNotMatch(missing.stderr, /executable file not found/);
    const notExecutable = await d.docker(['exec', 'box', '/etc/passwd']);
    assert.equal(notExecutable.code, 126);
    assert.match(notExecutable.stdout, /permission denied/);
    const noDir = await d.docker(['exec', '-w', '/nonexistent', 'box', 'true']);
    assert.equal(noDir.code, 126);
  });

  test('stdout and stderr stay apart; stdin is forwarded and closed at its end', async () => {
    const r = await d.docker(['exec', 'box', 'sh', '-c', 'echo out; echo err >&2; echo more']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'out\nmore\n');
    assert.equal(r.stderr, 'err\n');
    const cat = await d.docker(['exec', '-i', 'box', 'cat'], { input: 'hi\n' });
    assert.equal(cat.code, 0);
    assert.equal(cat.stdout, 'hi\n');
    const wc = await d.docker(['exec', '-i', 'box', 'wc', '-c'], { input: 'x'.repeat(300_000) });
    assert.equal(wc.stdout.trim(), '300000');
  });

  test('-u, -w and -e; the container\'s env beneath; --privileged gets every capability the daemon holds', async () => {
    const r = await d.docker(['exec', '-u', 'nobody', '-w', '/tmp', '-e', 'A=1', '-e', 'PATH=/bin', 'box', 'sh', '-c', 'id -u; pwd; echo $A; echo $PATH; echo $HOSTNAME']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['65534', '/tmp', '1', '/bin', id.slice(0, 12)]);
    assert.equal((await d.docker(['exec', '-u', '1:2', 'box', 'id'])).stdout.trim(), 'uid=1 gid=2 groups=2');
    const unknown = await d.docker(['exec', '-u', 'nosuch', 'box', 'true']);
    assert.equal(unknown.code, 126);
    assert.match(unknown.stdout, /unable to find user nosuch: no matching entries in passwd file/);
    const capEff = async (args: string[]) => {
      const r = await d.docker(['exec', ...args, 'box', 'sh', '-c', 'grep CapEff /proc/self/status']);
      assert.equal(r.code, 0, r.stdout);
      return r.stdout.trim().split(/\s+/)[1];
    };
    const plain = BigInt(`0x${await capEff([])}`);
    const privileged = BigInt(`0x${await capEff(['--privileged'])}`);
    assert.ok(privileged > plain, `${privileged} should hold more than ${plain}`);
    assert.equal(plain & (1n << 21n), 0n, 'CAP_SYS_ADMIN is not the container\'s');
    assert.notEqual(privileged & (1n << 21n), 0n, 'a privileged exec holds CAP_SYS_ADMIN');
  });

  test('-it: a terminal sized as the client\'s, with the exec\'s exit code', async () => {
    const r = await inTerminal(`stty rows 27 cols 93; DOCKER_HOST=${d.dockerHost} docker exec -it box sh`, ['stty size; tty; echo $TERM; exit 5\r']);
    assert.equal(r.code, 5, r.out);
    assert.match(r.out, /\r\n27 93\r\n\/dev\/pts\/\d+\r\nxterm\r\n/);
  });

  test('-t alone: raw output with CRLF; -d returns at once and the process runs on', async () => {
    const t = await d.docker(['exec', '-t', 'box', 'sh', '-c', 'test -t 1 && echo tty']);
    assert.equal(t.code, 0);
    assert.equal(t.stdout, 'tty\r\n');
    const detached = await d.docker(['exec', '-d', 'box', 'sh', '-c', 'sleep 0.3; echo done > /tmp/detached']);
    assert.equal(detached.code, 0);
    assert.equal(detached.stdout, '');
    await until('the detached exec\'s file', () => d.docker(['exec', 'box', 'cat', '/tmp/detached']), (r) => r.stdout === 'done\n');
  });

  test('inspect before and after a start; a second start is 409; ExecIDs lists what has not ended', async () => {
    const execId = await createExec({ Cmd: ['sh', '-c', 'exit 4'], AttachStdout: true, User: 'nobody', DetachKeys: 'ctrl-a' });
    const before = await inspectExec(execId);
    assert.deepEqual(
      { ...before, ContainerID: before.ContainerID === id },
      {
        ID: execId,
        Running: false,
        ExitCode: null,
        ProcessConfig: { tty: false, entrypoint: 'sh', arguments: ['-c', 'exit 4'], privileged: false, user: 'nobody' },
        OpenStdin: false,
        OpenStdout: true,
        OpenStderr: false,
        CanRemove: false,
        ContainerID: true,
        DetachKeys: 'AQ==',
        Pid: 0,
      },
    );
    assert.deepEqual((await inspectContainer(d, 'box')).ExecIDs, [execId]);
    const start = await d.request('POST', `/exec/${execId}/start`, { json: { Detach: true } });
    assert.equal(start.status, 200, start.body);
    const after = await until('the exec to end', () => inspectExec(execId), (e) => !e.Running && e.ExitCode !== null);
    assert.equal(after.ExitCode, 4);
    assert.ok(after.Pid > 0);
    assert.equal((await inspectContainer(d, 'box')).ExecIDs, null);
    const again = await d.request('POST', `/exec/${execId}/start`, { json: { Detach: true } });
    assert.equal(again.status, 409);
    assert.equal((again.json() as { message: string }).message, `Error: Exec command ${execId} has already run`);
  });

  test('bad requests: dockerd\'s statuses and words', async () => {
    const expectError = async (method: string, path: string, body: unknown, status: number, message: string) => {
      const r = await d.request(method, path, body === undefined ? {} : { json: body });
      assert.equal(r.status, status, `${method} ${path}: ${r.body}`);
      assert.equal((r.json() as { message: string }).message, message);
    };
    await expectError('POST', '/containers/box/exec', {}, 400, 'No exec command specified');
    await expectError('POST', '/containers/box/exec', { Cmd: [] }, 400, 'No exec command specified');
    await expectError('POST', '/containers/nosuch/exec', { Cmd: ['true'] }, 404, 'No such container: nosuch');
    // found by the API fuzzer (test/fuzz): a body of the wrong JSON type was a 500, where dockerd 20.10 answers 400
    await expectError('POST', '/containers/nosuch/exec', 'x', 400, 'json: cannot unmarshal string into Go value of type types.ExecConfig');
    await expectError('POST', '/containers/nosuch/exec', [1], 400, 'json: cannot unmarshal array into Go value of type types.ExecConfig');
    await expectError('POST', '/containers/nosuch/exec', { WorkingDir: 5 }, 400, 'json: cannot unmarshal number into Go struct field ExecConfig.WorkingDir of type string');
    await expectError('POST', '/containers/box/exec', { Cmd: ['true'], DetachKeys: 'bad' }, 400, 'Invalid escape keys (bad) provided');
    await expectError('GET', '/exec/nosuch/json', undefined, 404, 'No such exec instance: nosuch');
    await expectError('POST', '/exec/nosuch/start', {}, 404, 'No such exec instance: nosuch');
    await expectError('POST', '/exec/nosuch/resize?h=1&w=1', undefined, 404, 'No such exec instance: nosuch');
    const created = (await d.docker(['create', '--name', 'idle', 'busybox', 'true'])).stdout.trim();
    await expectError('POST', '/containers/idle/exec', { Cmd: ['true'] }, 409, `Container ${created} is not running`);
    const execId = await createExec({ Cmd: ['true'] });
    await expectError('POST', `/exec/${execId}/resize?h=x&w=1`, undefined, 400, 'strconv.Atoi: parsing "x": invalid syntax');
    assert.equal((await d.docker(['pause', 'box'])).code, 0);
    try {
      await expectError('POST', '/containers/box/exec', { Cmd: ['true'] }, 409, 'Container box is paused, unpause the container before exec');
      await expectError('POST', `/exec/${execId}/start`, { Detach: true }, 409, `Container ${id} is paused, unpause the container before exec`);
    } finally {
      await d.docker(['unpause', 'box']);
    }
    await d.docker(['rm', 'idle']);
  });

  /** A POST as docker-py 7 sends it (requests over http.client): its headers in its order, the body from json.dumps. */
  const dockerPyPost = (path: string, body: Record<string, unknown>, upgrade: boolean): string => {
    // json.dumps's separators
    const json = JSON.stringify(body).replace(/,"/g, ', "').replace(/":/g, '": ');
    const connection = upgrade ? 'Connection: Upgrade\r\nUpgrade: tcp' : 'Connection: keep-alive';
    return `POST /v1.41${path} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: docker-sdk-python/7.1.0\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\n${connection}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
  };
  /** docker-py's exec_create(container, cmd, stdin=True, tty=..., detach_keys=...) then exec_start(socket=True, tty=...), hijacked. */
  const dockerPyExec = async (cmd: string[], opts: { tty: boolean; startTty: boolean; detachKeys?: string }) => {
    const created = await rawExchange(dockerPyPost(`/containers/${id}/exec`, {
      Container: id, User: '', Privileged: false, Tty: opts.tty, AttachStdin: true, AttachStdout: true, AttachStderr: true, Cmd: cmd,
      ...(opts.detachKeys === undefined ? {} : { detachKeys: opts.detachKeys }),
    }, false));
    const execId = (JSON.parse(created.slice(created.indexOf('\r\n\r\n') + 4)) as { Id: string }).Id;
    const socket = net.connect({ path: d.socket, allowHalfOpen: true });
    let got = Buffer.alloc(0);
    socket.on('data', (c: Buffer) => (got = Buffer.concat([got, c])));
    const ended = new Promise<void>((r) => socket.once('end', r));
    socket.write(dockerPyPost(`/exec/${execId}/start`, { Tty: opts.startTty, Detach: false }, true));
    const head = 'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n';
    return {
      execId,
      socket,
      ended,
      /** what came after the head */
      output: () => got.subarray(head.length),
      waitFor: (text: string) => until(`"${text}" from the exec`, () => got.toString('latin1'), (all) => all.startsWith(head) && all.includes(text), 10_000),
    };
  };
  const rawExchange = (request: string): Promise<string> => new Promise((resolve, reject) => {
    const socket = net.connect(d.socket);
    let got = '';
    socket.on('data', (c: Buffer) => {
      got += c.toString();
      const end = got.indexOf('\r\n\r\n');
      const length = /\r\nContent-Length: (\d+)\r\n/i.exec(got)?.[1];
      if (end >= 0 && length !== undefined && got.length >= end + 4 + Number(length)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('error', reject);
    socket.write(request);
  });
  const EXEC_DETACHED = 'exec attach failed: error on attach stdin: read escape sequence\r\n';
  /** The detached process runs on: killing it now is what ends it, with the exit code of a SIGKILL. */
  const assertRunsOn = async (execId: string) => {
    const e = await inspectExec(execId);
    assert.equal(e.Running, true);
    assert.equal((await inspectContainer(d, 'box')).State.Running, true);
    process.kill(e.Pid, 'SIGKILL');
    const ended = await until('the killed exec to end', () => inspectExec(execId), (x) => !x.Running);
    assert.equal(ended.ExitCode, 137);
  };

  test("docker-py's detachKeys (ctrl-p, sent as \"detachKeys\") detach a terminal exec's client as dockerd ends it; the process runs on", async () => {
    for (const startTty of [false, true]) {
      const exec = await dockerPyExec(['sh'], { tty: true, startTty, detachKeys: 'ctrl-p' });
      assert.equal((await inspectExec(exec.execId)).DetachKeys, 'EA==');
      exec.socket.write('echo hel""lo\n');
      await exec.waitFor('hello\r\n');
      exec.socket.write('\x10');
      await exec.ended;
      // the start's Tty decides the framing (the exec has a terminal either way)
      const words = Buffer.from(EXEC_DETACHED);
      const tail = startTty ? words : frame('stdout', words);
      assert.deepEqual(exec.output().subarray(-tail.length), tail);
      exec.socket.destroy();
      await assertRunsOn(exec.execId);
    }
  });

  test("create's and start's keys are matched without case, as Go decodes them", async () => {
    const execId = await createExec({ cmd: ['sh', '-c', 'exit 3'], detachKeys: 'ctrl-a', TTY: true });
    const created = await inspectExec(execId);
    assert.deepEqual([created.ProcessConfig.tty, created.DetachKeys], [true, 'AQ==']);
    const start = await d.request('POST', `/exec/${execId}/start`, { json: { detach: true } });
    assert.equal(start.status, 200, start.body);
    assert.equal((await until('the exec to end', () => inspectExec(execId), (e) => !e.Running)).ExitCode, 3);
  });

  test('without detach keys a terminal exec detaches on ctrl-p,ctrl-q; without a terminal no keys detach', async () => {
    const exec = await dockerPyExec(['sh'], { tty: true, startTty: true });
    exec.socket.write('echo hel""lo\n');
    await exec.waitFor('hello\r\n');
    exec.socket.write('\x10');
    exec.socket.write('\x11');
    await exec.ended;
    assert.ok(exec.output().toString().endsWith(EXEC_DETACHED));
    exec.socket.destroy();
    await assertRunsOn(exec.execId);

    const plain = await dockerPyExec(['cat'], { tty: false, startTty: false, detachKeys: 'ctrl-p' });
    plain.socket.write('a\x10\x10\x11b\n');
    await plain.waitFor('b\n');
    plain.socket.end();
    await plain.ended;
    assert.deepEqual(plain.output(), frame('stdout', Buffer.from('a\x10\x10\x11b\n')));
    plain.socket.destroy();
    const ended = await until('cat to end', () => inspectExec(plain.execId), (e) => !e.Running);
    assert.equal(ended.ExitCode, 0);
  });

  test('a client that goes away leaves the process running, and its exit code is recorded', async () => {
    const execId = await createExec({ Cmd: ['sh', '-c', 'sleep 0.5; echo late; exit 7'], AttachStdout: true, AttachStderr: true });
    await new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ Detach: false, Tty: false });
      const req = http.request({
        socketPath: d.socket,
        method: 'POST',
        path: `/exec/${execId}/start`,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'Upgrade', Upgrade: 'tcp' },
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        resolve();
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal((await inspectExec(execId)).Running, true);
    const ended = await until('the exec to end', () => inspectExec(execId), (e) => !e.Running);
    assert.equal(ended.ExitCode, 7);
  });

  test('exec_create, exec_start and exec_die events name the exec and its exit code', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    assert.equal((await d.docker(['exec', 'box', 'sh', '-c', 'exit 2'])).code, 2);
    const events = await d.docker([
      'events',
      '--since', String(since),
      '--until', String(Math.ceil(Date.now() / 1000) + 1),
      '--filter', 'container=box',
      '--format', '{{.Action}}|{{index .Actor.Attributes "exitCode"}}|{{len (index .Actor.Attributes "execID")}}',
    ]);
    const lines = events.stdout.trim().split('\n').filter((l) => l.startsWith('exec_'));
    assert.deepEqual(lines.slice(-3), ['exec_create: sh -c exit 2||64', 'exec_start: sh -c exit 2||64', 'exec_die|2|64']);
  });

  test('health checks are execs too: their exec events, and no instance left behind', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const name = 'checked';
    await d.docker(['run', '-d', '--name', name, '--health-cmd', 'exit 0', '--health-interval', '200ms', 'busybox', 'sleep', '3000']);
    await until('healthy', () => inspectContainer(d, name), (c) => c.State.Health?.Status === 'healthy');
    const events = await d.docker([
      'events',
      '--since', String(since),
      '--until', String(Math.ceil(Date.now() / 1000) + 1),
      '--filter', `container=${name}`,
      '--format', '{{.Action}}|{{index .Actor.Attributes "exitCode"}}',
    ]);
    const lines = events.stdout.trim().split('\n');
    assert.ok(lines.includes('exec_create: /bin/sh -c exit 0|'), events.stdout);
    assert.ok(lines.includes('exec_start: /bin/sh -c exit 0|'), events.stdout);
    assert.ok(lines.includes('exec_die|0'), events.stdout);
    // a probe is listed while it runs (dockerd's are too), and unregistered after
    await until('no probe listed', () => inspectContainer(d, name), (c) => c.ExecIDs === null);
    await d.docker(['rm', '-f', name]);
  });

  test('instances belong to the run: a stop removes them (404), as dockerd does', async () => {
    const name = 'short';
    await d.docker(['run', '-d', '--name', name, 'busybox', 'sleep', '3000']);
    const execId = await createExec({ Cmd: ['true'] }, name);
    assert.equal((await d.docker(['stop', '-t', '0', name])).code, 0);
    const r = await d.request('GET', `/exec/${execId}/json`);
    assert.equal(r.status, 404);
    await d.docker(['start', name]);
    assert.equal((await d.request('POST', `/exec/${execId}/start`, { json: { Detach: true } })).status, 404);
    await d.docker(['rm', '-f', name]);
  });
});
