// runc exec and health checks in real busybox containers: the process gets the container's user,
// environment and working directory, its own exit code, dockerd's error and 127 or 126 when its command
// cannot start, and a time limit or abort kills it in the container. Every container, cgroup and
// folder goes in after().
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { LimitedOutput } from '../../../src/container/health/health-check.js';
import { HealthMonitor, type HealthProbe, type HealthState } from '../../../src/container/health/health-monitor.js';
import { applyLayer } from '../../../src/image/archive/layer-applier.js';
import { ALL_CAPABILITIES } from '../../../src/runtime/capabilities.js';
import { isConmonAlive, startUnderConmon } from '../../../src/runtime/conmon.js';
import { execProcess, type ExecRequest } from '../../../src/runtime/exec-process.js';
import { ociSpec, type OciSpec } from '../../../src/runtime/oci-spec.js';
import { Runc, type ExecOptions } from '../../../src/runtime/runc.js';
import { ContainerCommandError, RuntimeError } from '../../../src/runtime/runtime-errors.js';
import { tempDir } from '../../helpers/berthd.js';
import { BUSYBOX_PATH, busyboxLayer } from '../../helpers/busybox-image.js';
import { until } from '../../helpers/until.js';

const CGROUP_PARENT = `berth-test-exec-${process.pid}`;
const MS = 1_000_000;
const ID = 'exec-box';

let dir: string;
let runc: Runc;
let spec: OciSpec;
const created = new Set<string>();
const monitors: HealthMonitor[] = [];
const conmons: Array<{ pid: number; id: string }> = [];

/** Creates and starts a container running `args` as the busybox image's user test (1000:1000). */
async function startContainer(id: string, args: string[]): Promise<void> {
  const bundle = await makeBundle(id, args);
  await runc.create(id, bundle, { pidFile: path.join(bundle, 'init.pid') });
  await runc.start(id);
}

async function makeBundle(id: string, args: string[]): Promise<string> {
  const bundle = path.join(dir, 'bundles', id);
  const rootfs = path.join(bundle, 'rootfs');
  mkdirSync(rootfs, { recursive: true });
  await applyLayer(Readable.from([await busyboxLayer()]), { target: rootfs, lowerDirs: [] });
  const s = ociSpec({
    args,
    env: [BUSYBOX_PATH, `HOSTNAME=${id}`, 'FOO=from the container'],
    cwd: '/home/test',
    user: { uid: 1000, gid: 1000 },
    hostname: id,
    rootfsPath: rootfs,
    cgroupsPath: `/${CGROUP_PARENT}/${id}`,
  });
  writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(s));
  created.add(id);
  return bundle;
}

/** The spec a container was made with, from its bundle (what berth's runner reads for an exec). */
function specOf(id: string): OciSpec {
  return JSON.parse(readFileSync(path.join(dir, 'bundles', id, 'config.json'), 'utf8')) as OciSpec;
}

function exec(req: ExecRequest, opts?: ExecOptions) {
  return runc.exec(ID, execProcess(spec, req), opts);
}

/** The container's processes with their command lines. */
async function processes(id = ID): Promise<Array<{ pid: number; commandLine: string }>> {
  const out: Array<{ pid: number; commandLine: string }> = [];
  for (const pid of await runc.ps(id)) {
    try {
      out.push({ pid, commandLine: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') });
    } catch {
      // gone since
    }
  }
  return out;
}

async function commandLines(id = ID): Promise<string[]> {
  return (await processes(id)).map((p) => p.commandLine);
}

before(async () => {
  dir = tempDir('berth-exec-');
  runc = new Runc({ stateDir: path.join(dir, 'state'), logDir: path.join(dir, 'logs'), timeoutMs: 10_000 });
  await startContainer(ID, ['sleep', '1000']);
  spec = specOf(ID);
});

after(async () => {
  await Promise.all(monitors.map((m) => m.stop()));
  for (const id of created) {
    try {
      await runc.delete(id, { force: true });
    } catch {
      // already gone
    }
  }
  // each conmon ends with its container
  for (const { pid, id } of conmons) {
    await until('conmon to end', () => isConmonAlive(pid, id), (alive) => !alive, 5000).catch(() => process.kill(pid, 'SIGKILL'));
  }
  // runc removes each container's cgroup, not the parent berth made them under
  for (const hierarchy of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
    const parent = path.join('/sys/fs/cgroup', hierarchy, CGROUP_PARENT);
    if (existsSync(parent)) rmdirSync(parent);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('runc exec', () => {
  it("runs as the container's user, in its working directory, with its environment", async () => {
    const r = await exec({ args: ['sh', '-c', 'id; pwd; env | sort'] });
    assert.equal(r.exitCode, 0, r.stderr.toString());
    const [id, pwd, ...env] = r.stdout.toString('utf8').trim().split('\n');
    assert.match(id, /^uid=1000\(test\) gid=1000\(test\)/);
    assert.equal(pwd, '/home/test');
    // runc adds HOME from /etc/passwd, as under Docker; the shell adds PWD and SHLVL
    assert.deepEqual(env, ['FOO=from the container', `HOME=/home/test`, `HOSTNAME=${ID}`, BUSYBOX_PATH, 'PWD=/home/test', 'SHLVL=1']);
    assert.equal(r.stderr.length, 0);
  });

  it('runs as the user and with the env the request gives, keeping stdout and stderr apart', async () => {
    const r = await exec({ args: ['sh', '-c', 'id -u; echo "$FOO|$BAR"; echo oops >&2'], user: { uid: 0, gid: 0 }, env: ['BAR=2', 'FOO'], cwd: '/tmp' });
    assert.deepEqual([r.exitCode, r.stdout.toString(), r.stderr.toString()], [0, '0\n|2\n', 'oops\n']);
  });

  it("returns the process's own exit code", async () => {
    const r = await exec({ args: ['sh', '-c', 'exit 3'] });
    assert.deepEqual([r.exitCode, r.stdout.length, r.stderr.length], [3, 0, 0]);
    // killed by a signal: 128+n, as runc reports it
    assert.equal((await exec({ args: ['sh', '-c', 'kill -9 $$'] })).exitCode, 137);
  });

  it("refuses a missing command with dockerd's message and exit code 127", async () => {
    await assert.rejects(exec({ args: ['nope'] }), (err: ContainerCommandError) => {
      assert.ok(err instanceof ContainerCommandError);
      assert.equal(err.kind, 'invalidParameter');
      assert.equal(err.exitCode, 127);
      assert.equal(err.message, 'OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown');
      return true;
    });
    await assert.rejects(exec({ args: ['/no/such/thing'] }), (err: ContainerCommandError) => err.exitCode === 127 && /stat \/no\/such\/thing: no such file or directory: unknown$/.test(err.message));
  });

  it('refuses a file that cannot be executed with 126', async () => {
    await assert.rejects(exec({ args: ['/etc/passwd'] }), (err: ContainerCommandError) => {
      assert.ok(err instanceof ContainerCommandError);
      assert.equal(err.exitCode, 126);
      assert.equal(err.message, 'OCI runtime exec failed: exec failed: unable to start container process: exec: "/etc/passwd": permission denied: unknown');
      return true;
    });
  });

  it('cannot give an exec a capability the daemon does not hold (CAP_SYS_RESOURCE here)', async () => {
    await assert.rejects(exec({ args: ['id'], capabilities: ALL_CAPABILITIES }), (err: RuntimeError) => {
      assert.ok(err instanceof RuntimeError && !(err instanceof ContainerCommandError));
      assert.equal(err.kind, 'system');
      assert.equal(err.message, 'OCI runtime exec failed: exec failed: unable to start container process: unable to apply caps: operation not permitted: unknown');
      return true;
    });
  });

  it('kills the process at its time limit, leaving nothing in the container', async () => {
    const startedMs = Date.now();
    await assert.rejects(exec({ args: ['sleep', '100'] }, { timeoutMs: 300 }), /runc exec exec-box did not finish within 300 ms/);
    assert.ok(Date.now() - startedMs < 5000);
    assert.deepEqual(await commandLines(), ['sleep 1000']);
    // a shell's children go with it: they are in its process group
    await assert.rejects(exec({ args: ['sh', '-c', 'sleep 100; echo never'] }, { timeoutMs: 300 }), /did not finish within 300 ms/);
    assert.deepEqual(await commandLines(), ['sleep 1000']);
    // one that left the group stays (as under Docker), but does not hold the call with the output pipes it has
    await assert.rejects(exec({ args: ['sh', '-c', 'setsid sleep 99 & sleep 100'] }, { timeoutMs: 300 }), /did not finish within 300 ms/);
    assert.deepEqual((await commandLines()).sort(), ['sleep 1000', 'sleep 99']);
    for (const { pid } of (await processes()).filter((p) => p.commandLine === 'sleep 99')) process.kill(pid, 'SIGKILL');
    await until('the stray sleep to end', () => commandLines(), (l) => l.length === 1);
  });

  it('kills the process on abort, and fails with the reason', async () => {
    const ac = new AbortController();
    const pidFile = path.join(dir, 'abort.pid');
    const running = exec({ args: ['sh', '-c', 'sleep 100 & sleep 100'] }, { signal: ac.signal, pidFile });
    // busybox sh runs its last command in its own place
    const lines = await until('both sleeps', () => commandLines(), (l) => l.filter((c) => c === 'sleep 100').length === 2);
    assert.deepEqual(lines.sort(), ['sleep 100', 'sleep 100', 'sleep 1000']);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(existsSync(`/proc/${pid}`));
    const reason = new Error('no longer wanted');
    ac.abort(reason);
    await assert.rejects(running, (err) => err === reason);
    assert.deepEqual(await commandLines(), ['sleep 1000']);
    // an aborted signal starts nothing
    await assert.rejects(exec({ args: ['sleep', '100'] }, { signal: ac.signal }), (err) => err === reason);
  });

  it('starts a detached process and leaves it running', async () => {
    const pidFile = path.join(dir, 'detached.pid');
    const r = await exec({ args: ['sleep', '101'] }, { detach: true, pidFile });
    assert.equal(r.exitCode, 0);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.deepEqual((await commandLines()).sort(), ['sleep 1000', 'sleep 101']);
    process.kill(pid, 'SIGKILL');
    await until('the detached sleep to end', () => commandLines(), (l) => l.length === 1);
  });

  it('runs in a container that runs under conmon, as berth runs them', async () => {
    const id = 'exec-conmon';
    const bundle = await makeBundle(id, ['sleep', '1000']);
    const own = path.join(dir, id);
    const started = await startUnderConmon({
      containerId: id,
      name: id,
      bundleDir: bundle,
      runtimePath: execFileSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).trim(),
      runtimeRoot: path.join(dir, 'state'),
      runtimeLogPath: path.join(own, 'runc.log'),
      containerPidFile: path.join(own, 'container.pid'),
      conmonPidFile: path.join(own, 'conmon.pid'),
      logPath: path.join(own, 'ctr.log'),
      exitDir: path.join(dir, 'exits'),
      persistDir: path.join(own, 'persist'),
      socketDir: path.join(dir, 's'),
      terminal: false,
      stdin: false,
    });
    conmons.push({ pid: started.conmonPid, id });
    await runc.start(id);
    const s = specOf(id);
    const r = await runc.exec(id, execProcess(s, { args: ['id', '-u'] }));
    assert.deepEqual([r.exitCode, r.stdout.toString()], [0, '1000\n']);
    await assert.rejects(runc.exec(id, execProcess(s, { args: ['sleep', '100'] }), { timeoutMs: 300 }), /did not finish within 300 ms/);
    assert.deepEqual(await commandLines(id), ['sleep 1000']);
    // the exec's end is not the container's: conmon has recorded no exit
    assert.equal((await runc.state(id)).status, 'running');
    assert.equal(existsSync(path.join(dir, 'exits', id)), false);
  });

  it('refuses an exec in a stopped container as a conflict', async () => {
    await startContainer('exec-stopped', ['true']);
    await until('the container to stop', () => runc.state('exec-stopped'), (s) => s.status === 'stopped');
    const stoppedSpec = specOf('exec-stopped');
    await assert.rejects(runc.exec('exec-stopped', execProcess(stoppedSpec, { args: ['id'] })), (err: RuntimeError) => err.kind === 'conflict');
  });
});

/** The probe the daemon's exec service runs, without the service: runc exec with the container's process. */
function runcProbe(id: string): HealthProbe {
  return async (cmd, timeoutMs, signal) => {
    const output = new LimitedOutput();
    const r = await runc.exec(id, execProcess(specOf(id), { args: cmd }), { onOutput: (chunk) => output.write(chunk), timeoutMs, signal });
    return { exitCode: r.exitCode, output: output.toString() };
  };
}

describe('health checks in a container', () => {
  function monitor(config: ConstructorParameters<typeof HealthMonitor>[0]['config']): { m: HealthMonitor; changes: Array<[HealthState, boolean]> } {
    const changes: Array<[HealthState, boolean]> = [];
    const m = new HealthMonitor({ config, probe: runcProbe(ID), onChange: (s, changed) => changes.push([s, changed]) });
    monitors.push(m);
    return { m, changes };
  }

  it('goes starting → unhealthy, then healthy once the file its check wants is there', async () => {
    await exec({ args: ['rm', '-f', '/tmp/ok'] });
    const { m, changes } = monitor({ Test: ['CMD-SHELL', 'test -f /tmp/ok'], Interval: 50 * MS, Retries: 2 });
    assert.equal(m.state.Status, 'starting');
    m.start();
    await until('unhealthy', () => m.state.Status, (s) => s === 'unhealthy');
    assert.deepEqual(changes.slice(0, 2).map(([s, c]) => [s.Status, s.FailingStreak, c]), [['starting', 1, false], ['unhealthy', 2, true]]);
    assert.deepEqual(changes[1][0].Log.map((e) => [e.ExitCode, e.Output]), [[1, ''], [1, '']]);

    const touched = await exec({ args: ['touch', '/tmp/ok'] });
    assert.equal(touched.exitCode, 0);
    await until('healthy', () => m.state.Status, (s) => s === 'healthy');
    await m.stop();
    const [last, changed] = changes.at(-1) ?? assert.fail('no change');
    assert.deepEqual([last.Status, last.FailingStreak, changed, last.Log.at(-1)?.ExitCode], ['healthy', 0, true, 0]);
    // the file is the container user's: the check ran as that user too
    assert.equal((await exec({ args: ['stat', '-c', '%u', '/tmp/ok'] })).stdout.toString(), '1000\n');
  });

  it("runs the check as the container's user with its env, and keeps 4096 bytes of output", async () => {
    const { m, changes } = monitor({ Test: ['CMD-SHELL', 'id -u; echo "$FOO" >&2; sleep 0.1; head -c 5000 /dev/zero | tr "\\0" a; exit 1'], Interval: 20 * MS });
    m.start();
    await until('a result', () => changes.length, (n) => n >= 1);
    await m.stop();
    const { ExitCode, Output } = changes[0][0].Log[0];
    assert.equal(ExitCode, 1);
    // stdout and stderr in one buffer, in the order they came
    assert.equal(Output, `1000\nfrom the container\n${'a'.repeat(4096 - 24)}...`);
  });

  it('records a missing command as -1 with the runtime’s message', async () => {
    const { m, changes } = monitor({ Test: ['CMD', 'nope'], Interval: 20 * MS, Retries: 1 });
    m.start();
    await until('a result', () => changes.length, (n) => n >= 1);
    await m.stop();
    assert.deepEqual(changes[0][0].Log.map((e) => [e.ExitCode, e.Output]), [
      [-1, 'OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown'],
    ]);
    assert.equal(changes[0][0].Status, 'unhealthy');
  });

  it('kills a check over its Timeout and records it as dockerd does', async () => {
    const { m, changes } = monitor({ Test: ['CMD', 'sleep', '100'], Interval: 20 * MS, Timeout: 300 * MS, Retries: 1 });
    m.start();
    await until('a result', () => changes.length, (n) => n >= 1);
    await m.stop();
    const [entry] = changes[0][0].Log;
    assert.deepEqual([entry.ExitCode, entry.Output, changes[0][0].Status], [-1, 'Health check exceeded timeout (300ms)', 'unhealthy']);
    assert.deepEqual(await commandLines(), ['sleep 1000']);
  });

  it('stops with the check under way killed', async () => {
    const { m, changes } = monitor({ Test: ['CMD', 'sleep', '100'], Interval: 20 * MS });
    m.start();
    await until('the check to run', () => commandLines(), (l) => l.includes('sleep 100'));
    await m.stop();
    assert.deepEqual(changes, []);
    assert.deepEqual(await commandLines(), ['sleep 1000']);
  });
});
