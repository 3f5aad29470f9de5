// runc driven through src/runtime/runc.ts, for real: containers from the busybox test image's
// layer, with config.json from oci-spec.ts. Every container, cgroup and folder goes in after().
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ociSpec, type ContainerSpecInput } from '../../../src/runtime/oci-spec.js';
import { Runc, type RuncStatus } from '../../../src/runtime/runc.js';
import { ContainerCommandError, RuntimeError } from '../../../src/runtime/runtime-errors.js';
import { BUSYBOX_PATH } from '../../helpers/busybox-image.js';
import { RuncFixture } from '../../helpers/runc-fixture.js';

const CGROUP_PARENT = `berth-test-runc-${process.pid}`;
/** Docker's 14 default capabilities as /proc/<pid>/status shows them */
const DOCKER_CAP_MASK = '00000000a80425fb';

let fixture: RuncFixture;
let dir: string;
let rootfs: string;
let runc: Runc;
let created: Set<string>;

before(async () => {
  fixture = await RuncFixture.create('berth-runc-', CGROUP_PARENT);
  ({ dir, rootfs, runc, created } = fixture);
});

after(async () => {
  await fixture.cleanUp();
});

/** A bundle whose config.json runs `args` in the busybox root filesystem. */
function bundle(id: string, args: string[], extra: Partial<ContainerSpecInput> = {}): string {
  const b = path.join(dir, 'bundles', id);
  mkdirSync(b, { recursive: true });
  const spec = ociSpec({
    args,
    env: [BUSYBOX_PATH, `HOSTNAME=${id}`],
    cwd: '/',
    user: { uid: 0, gid: 0 },
    hostname: id,
    rootfsPath: rootfs,
    cgroupsPath: `/${CGROUP_PARENT}/${id}`,
    ...extra,
  });
  writeFileSync(path.join(b, 'config.json'), JSON.stringify(spec));
  created.add(id);
  return b;
}

async function waitForStatus(id: string, want: RuncStatus, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await runc.state(id);
    if (status === want) return;
    if (Date.now() > deadline) assert.fail(`${id} is ${status}, not ${want}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('runc', () => {
  it("runs a command in the foreground and returns its exit code", async () => {
    const r = await runc.run('exit-3', bundle('exit-3', ['sh', '-c', 'echo out; echo err >&2; exit 3']));
    assert.deepEqual(r, { exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    // run deletes the container when it ends
    assert.deepEqual((await runc.list()).map((s) => s.id), []);
  });

  it("gives the container Docker's capabilities, its command as pid 1, and the daemon's rlimits", async () => {
    const script = 'grep Cap /proc/self/status; tr "\\0" " " </proc/1/cmdline; echo; hostname; ulimit -Sn; ulimit -Hn';
    const r = await runc.run('inside', bundle('inside', ['sh', '-c', script]));
    assert.equal(r.exitCode, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const caps = Object.fromEntries(lines.filter((l) => l.startsWith('Cap')).map((l) => l.split(/:\s+/)));
    assert.deepEqual(caps, { CapInh: '0000000000000000', CapPrm: DOCKER_CAP_MASK, CapEff: DOCKER_CAP_MASK, CapBnd: DOCKER_CAP_MASK, CapAmb: '0000000000000000' });
    assert.equal(lines[5], `sh -c ${script} `);
    assert.equal(lines[6], 'inside');
    // no rlimits in the spec: runc passes on its own, which are this process's
    const own = execFileSync('sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(lines.slice(7, 9), own);
  });

  it('creates, starts, pauses, resumes, signals and deletes a container, with its states', async () => {
    const id = 'lifecycle';
    const pidFile = path.join(dir, `${id}.pid`);
    await runc.create(id, bundle(id, ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 0.05; done']), { pidFile });
    const createdState = await runc.state(id);
    assert.equal(createdState.status, 'created');
    assert.equal(createdState.pid, Number(readFileSync(pidFile, 'utf8')));
    assert.equal(createdState.bundle, path.join(dir, 'bundles', id));

    await runc.start(id);
    assert.equal((await runc.state(id)).status, 'running');
    assert.deepEqual((await runc.list()).map((s) => [s.id, s.status]), [[id, 'running']]);
    await assert.rejects(runc.start(id), (err: RuntimeError) => err.kind === 'conflict');
    await assert.rejects(runc.delete(id), (err: RuntimeError) => err.kind === 'conflict' && /not stopped: running/.test(err.message));

    await runc.pause(id);
    assert.equal((await runc.state(id)).status, 'paused');
    await runc.resume(id);
    assert.equal((await runc.state(id)).status, 'running');
    await assert.rejects(runc.resume(id), (err: RuntimeError) => err.kind === 'conflict' && err.runtimeMessage === 'container not paused');

    await runc.update(id, { pids: { limit: 42 } });
    assert.equal(readFileSync(`/sys/fs/cgroup/pids/${CGROUP_PARENT}/${id}/pids.max`, 'utf8').trim(), '42');

    await assert.rejects(runc.kill(id, 'NOPE'), (err: RuntimeError) => err.kind === 'invalidParameter');
    await runc.kill(id, 'SIGTERM');
    await waitForStatus(id, 'stopped');
    assert.equal((await runc.state(id)).pid, 0);
    await assert.rejects(runc.kill(id, 'KILL'), (err: RuntimeError) => err.kind === 'conflict' && err.runtimeMessage === 'container not running');

    await runc.delete(id);
    await assert.rejects(runc.state(id), (err: RuntimeError) => err.kind === 'notFound' && err.operation === 'state');
    await assert.rejects(runc.delete(id), (err: RuntimeError) => err.kind === 'notFound');
    assert.equal(existsSync(`/sys/fs/cgroup/pids/${CGROUP_PARENT}/${id}`), false);
  });

  it('kills every process with all, and deletes a running container with force', async () => {
    await runc.create('forced', bundle('forced', ['sleep', '1000']), { pidFile: path.join(dir, 'forced.pid') });
    await runc.start('forced');
    // sleep as pid 1 has no handler: TERM does nothing to it, as under Docker
    await runc.kill('forced', 15);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await runc.state('forced')).status, 'running');
    await runc.delete('forced', { force: true });
    assert.deepEqual(await runc.list(), []);

    await runc.create('all', bundle('all', ['sh', '-c', 'sleep 1000 & sleep 1000']), { pidFile: path.join(dir, 'all.pid') });
    await runc.start('all');
    await runc.kill('all', 'KILL', { all: true });
    await waitForStatus('all', 'stopped');
    await runc.delete('all');
  });

  it("refuses a missing command with Docker's message and exit code 127, at create and run", async () => {
    const expected = 'OCI runtime create failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown';
    await assert.rejects(runc.create('missing', bundle('missing', ['nope']), { pidFile: path.join(dir, 'missing.pid') }), (err: ContainerCommandError) => {
      assert.ok(err instanceof ContainerCommandError);
      assert.equal(err.kind, 'invalidParameter');
      assert.equal(err.exitCode, 127);
      assert.equal(err.message, expected);
      return true;
    });
    await runc.delete('missing', { force: true });
    await assert.rejects(runc.run('missing-run', bundle('missing-run', ['/no/such/thing'])), (err: ContainerCommandError) => {
      assert.equal(err.exitCode, 127);
      assert.match(err.message, /exec: "\/no\/such\/thing": stat \/no\/such\/thing: no such file or directory/);
      return true;
    });
  });

  it('refuses a command that cannot be executed with exit code 126', async () => {
    await assert.rejects(runc.run('noexec', bundle('noexec', ['/etc/passwd'])), (err: ContainerCommandError) => {
      assert.equal(err.exitCode, 126);
      assert.equal(err.message, 'OCI runtime create failed: unable to start container process: exec: "/etc/passwd": permission denied: unknown');
      return true;
    });
  });

  it('ends a call that takes too long', async () => {
    await assert.rejects(
      runc.run('slow', bundle('slow', ['sleep', '1000']), { timeoutMs: 300 }),
      (err: Error) => /did not finish within 300 ms/.test(err.message),
    );
  });
});
