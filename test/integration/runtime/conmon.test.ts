// Real containers under conmon and runc: output in the k8s-file log, exit codes in exit files,
// survival of the process that started them, runc's messages on failure, terminal resize.
import { alive } from '../../helpers/leftovers.js';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ContainerStartError, isConmonAlive, readPidFile, resizeTerminal, startUnderConmon, type ConmonOptions } from '../../../src/runtime/conmon.js';
import { readExitFile, waitForExitFile } from '../../../src/runtime/exit-files.js';
import { nowNanos } from '../../../src/lib/timestamp.js';
import { makeBusyboxBundle } from '../../helpers/busybox-bundle.js';

const RUNC = execFileSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).trim();
const CHILD = fileURLToPath(new URL('../../helpers/conmon-child.js', import.meta.url));

const root = mkdtempSync(path.join(os.tmpdir(), 'berth-conmon-'));
const runtimeRoot = path.join(root, 'runc');
const exitDir = path.join(root, 'exits');
const socketDir = path.join(root, 's');
const made: ConmonOptions[] = [];

function runc(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(RUNC, ['--root', runtimeRoot, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let n = 0;
function container(args: string[], extra: Partial<ConmonOptions> = {}): ConmonOptions {
  const id = `berth-conmon-test-${process.pid}-${n++}`;
  const dir = path.join(root, id);
  const bundleDir = makeBusyboxBundle(path.join(dir, 'bundle'), { args, terminal: extra.terminal });
  const opts: ConmonOptions = {
    containerId: id,
    name: `test${n}`,
    bundleDir,
    runtimePath: RUNC,
    runtimeRoot,
    runtimeLogPath: path.join(dir, 'runc.log'),
    containerPidFile: path.join(dir, 'container.pid'),
    conmonPidFile: path.join(dir, 'conmon.pid'),
    logPath: path.join(dir, 'ctr.log'),
    exitDir,
    persistDir: path.join(dir, 'persist'),
    socketDir,
    terminal: false,
    stdin: false,
    timeoutMs: 30_000,
    ...extra,
  };
  made.push(opts);
  return opts;
}

// Live conmon processes started by these tests. A conmon that has exited is reparented to pid 1
// and may stay a zombie until pid 1 reaps it; a zombie's cmdline is empty, so it does not count.
function ourConmons(): number[] {
  const r = spawnSync('pgrep', ['-x', 'conmon'], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root);
    } catch {
      return false;
    }
  });
}

async function until(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface LogLine {
  time: string;
  stream: string;
  tag: string;
  text: string;
}

function logLines(file: string): LogLine[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const m = /^(\S+) (stdout|stderr) ([FP]) (.*)$/s.exec(line);
    assert.ok(m, `not a k8s-file line: ${JSON.stringify(line)}`);
    return { time: m[1], stream: m[2], tag: m[3], text: m[4] };
  });
}

after(async () => {
  for (const c of made) {
    runc('kill', c.containerId, 'KILL');
    runc('delete', '--force', c.containerId);
    try {
      const pid = await readPidFile(c.conmonPidFile);
      if (await isConmonAlive(pid, c.containerId)) process.kill(pid, 'SIGKILL');
    } catch {
      // no pid file: conmon never got that far
    }
  }
  await until('our conmon processes to end', () => ourConmons().length === 0, 5000).catch(() => {});
  for (const pid of ourConmons()) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
  assert.deepEqual(ourConmons(), [], 'a conmon of these tests is still running');
});

describe('containers under conmon', () => {
  it('logs stdout and stderr in k8s-file lines and records exit code 3 with its time', async () => {
    const c = container(['sh', '-c', 'echo out; echo err >&2; exit 3']);
    const startedNs = nowNanos();
    const started = await startUnderConmon(c);
    assert.ok(started.containerPid > 0 && started.conmonPid > 0);
    assert.equal(await readPidFile(c.containerPidFile), started.containerPid);
    assert.ok(await isConmonAlive(started.conmonPid, c.containerId));
    assert.equal(JSON.parse(runc('state', c.containerId).stdout).status, 'created');
    // conmon made the attach socket's symlink to the bundle, and the ctl fifo in it
    assert.equal(started.attachSocketPath, path.join(socketDir, c.containerId, 'attach'));
    assert.equal(readlinkSync(path.dirname(started.attachSocketPath)), c.bundleDir);
    assert.equal(started.ctlPath, path.join(c.bundleDir, 'ctl'));

    assert.equal(runc('start', c.containerId).status, 0);
    const exit = await waitForExitFile({ exitDir, containerId: c.containerId, persistDir: c.persistDir }, { timeoutMs: 10_000 });
    assert.equal(exit.exitCode, 3);
    assert.equal(exit.oomKilled, false);
    assert.ok(exit.finishedAtNs > startedNs - 20_000_000n, `finished ${exit.finishedAtNs}, started ${startedNs}`);
    assert.equal(readFileSync(path.join(c.persistDir, 'exit'), 'utf8'), '3');

    const lines = logLines(c.logPath);
    assert.deepEqual(
      lines.map(({ stream, tag, text }) => ({ stream, tag, text })).sort((a, b) => a.stream.localeCompare(b.stream)),
      [{ stream: 'stderr', tag: 'F', text: 'err' }, { stream: 'stdout', tag: 'F', text: 'out' }],
    );
    for (const { time } of lines) {
      assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(Z|[+-]\d\d:\d\d)$/);
      assert.ok(Date.parse(time) >= Number(startedNs / 1_000_000n) - 1000);
    }
    await until('conmon to end', async () => !(await isConmonAlive(started.conmonPid, c.containerId)));
    assert.equal(runc('delete', c.containerId).status, 0);
  });

  it('keeps a container running when the process that started it is killed', async () => {
    const c = container(['sleep', '1000']);
    const starter = spawn(process.execPath, [CHILD, JSON.stringify(c)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      starter.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.split('\n')[0]);
      });
      starter.once('exit', (code) => reject(new Error(`the starter exited (${code}) before reporting`)));
    });
    const started = JSON.parse(line) as { conmonPid: number; containerPid: number; error?: string };
    assert.equal(started.error, undefined);
    const exited = new Promise((resolve) => starter.once('exit', resolve));
    starter.kill('SIGKILL');
    await exited;

    await new Promise((r) => setTimeout(r, 200));
    assert.ok(await isConmonAlive(started.conmonPid, c.containerId), 'conmon died with its starter');
    assert.ok(alive(started.containerPid), 'the container died with its starter');
    assert.equal(JSON.parse(runc('state', c.containerId).stdout).status, 'running');
    assert.equal(await readExitFile({ exitDir, containerId: c.containerId }), undefined);

    const waiting = waitForExitFile({ exitDir, containerId: c.containerId, persistDir: c.persistDir }, { timeoutMs: 10_000 });
    assert.equal(runc('kill', c.containerId, 'KILL').status, 0);
    assert.equal((await waiting).exitCode, 137);
    await until('conmon to end', async () => !(await isConmonAlive(started.conmonPid, c.containerId)));
    assert.equal(runc('delete', c.containerId).status, 0);
  });

  it("fails with runc's message for a command that does not exist, leaving nothing behind", async () => {
    const c = container(['/bin/no-such-command']);
    const err = await startUnderConmon(c).then(
      () => assert.fail('the container was created'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ContainerStartError, String(err));
    assert.equal(err.kind, 'system');
    assert.match(err.runtimeMessage, /no-such-command.*no such file or directory|executable file not found/);
    assert.equal(err.message, err.runtimeMessage);
    assert.notEqual(runc('state', c.containerId).status, 0, 'runc still knows the container');
    assert.throws(() => readFileSync(c.conmonPidFile), /ENOENT/);
    await until('conmon to end', () => ourConmons().length === 0);
  });

  it('resizes a terminal through the ctl fifo', async () => {
    const c = container(['sh', '-c', 'sleep 1; stty size'], { terminal: true });
    const started = await startUnderConmon(c);
    assert.equal(runc('start', c.containerId).status, 0);
    await resizeTerminal(c.bundleDir, { height: 40, width: 123 });
    const exit = await waitForExitFile({ exitDir, containerId: c.containerId }, { timeoutMs: 10_000 });
    assert.equal(exit.exitCode, 0);
    const lines = logLines(c.logPath);
    assert.ok(lines.every((l) => l.stream === 'stdout'), 'a terminal has one stream');
    assert.ok(lines.some((l) => l.text.startsWith('40 123')), JSON.stringify(lines));
    await until('conmon to end', async () => !(await isConmonAlive(started.conmonPid, c.containerId)));
    await assert.rejects(resizeTerminal(c.bundleDir, { height: 1, width: 1 }), /ENXIO|ENOENT/);
    assert.equal(runc('delete', c.containerId).status, 0);
  });
});
