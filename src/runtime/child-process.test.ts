import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { CommandError, pipeThroughCommand, runCommand, useCommandExecutor } from './child-process.js';
import { CommandRunner } from './command-runner.js';

/** Checks that the promise fails with a CommandError with these fields, and returns it. */
async function commandError(promise: Promise<unknown>, expected: Partial<CommandError>): Promise<CommandError> {
  let caught: unknown;
  await assert.rejects(promise, (err: unknown) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof CommandError, `not a CommandError: ${String(caught)}`);
  assert.equal(caught.kind, 'system');
  for (const [field, value] of Object.entries(expected)) assert.deepEqual(caught[field as keyof CommandError], value, field);
  return caught;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilGone(pid: number): Promise<void> {
  for (let i = 0; i < 100 && isRunning(pid); i++) await sleep(20);
  assert.equal(isRunning(pid), false, `process ${pid} still runs`);
}

// the same behaviour whether the command runs here or in the daemon's command runner
for (const where of ['here', 'through the command runner'] as const) {
  describe(`runCommand, ${where}`, () => {
    let runner: CommandRunner | undefined;
    before(async () => {
      if (where === 'here') return;
      runner = CommandRunner.start();
      useCommandExecutor(runner.execute);
    });
    after(() => {
      useCommandExecutor(undefined);
      runner?.close();
    });

    it('resolves with the exit code, stdout as bytes and stderr', async () => {
      const r = await runCommand('sh', ['-c', 'printf "a\\377"; echo warn >&2']);
      assert.deepEqual(r, { exitCode: 0, stdout: Buffer.from([0x61, 0xff]), stderr: 'warn\n' });
    });

    it('fails on a non-zero exit with the first line of stderr, the name given once', async () => {
      await commandError(runCommand('sh', ['-c', 'echo "first line" >&2; echo second >&2; exit 3']), {
        message: 'sh: first line',
        command: 'sh',
        exitCode: 3,
        signal: null,
        stderr: 'first line\nsecond\n',
        timedOut: false,
      });
      await commandError(runCommand('/bin/sh', ['-c', 'echo "sh: oops" >&2; exit 1']), { message: 'sh: oops', command: '/bin/sh' });
      await commandError(runCommand('sh', ['-c', 'exit 4']), { message: 'sh: exit status 4', exitCode: 4 });
    });

    it('answers with an allowed exit code instead of failing', async () => {
      const r = await runCommand('sh', ['-c', 'echo out; echo no such attribute >&2; exit 1'], { allowExitCodes: [1] });
      assert.deepEqual(r, { exitCode: 1, stdout: Buffer.from('out\n'), stderr: 'no such attribute\n' });
      await commandError(runCommand('sh', ['-c', 'exit 2'], { allowExitCodes: [1] }), { exitCode: 2 });
    });

    it('kills the command at its time limit and says so, even when a child of it holds the pipes', async () => {
      const started = Date.now();
      await commandError(runCommand('sh', ['-c', 'sleep 3 & sleep 10'], { timeoutMs: 200 }), {
        message: 'sh: timed out after 200 ms',
        exitCode: null,
        signal: 'SIGKILL',
        timedOut: true,
      });
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    });

    it('kills the command when the signal aborts, and rejects with its reason', async () => {
      const pidFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'berth-child-process-')), 'pid');
      const ac = new AbortController();
      const running = runCommand('sh', ['-c', `echo $$ >${pidFile}; exec sleep 10`], { signal: ac.signal });
      while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8') === '') await sleep(20);
      ac.abort();
      await assert.rejects(running, { name: 'AbortError' });
      await waitUntilGone(Number(readFileSync(pidFile, 'utf8')));
      rmSync(path.dirname(pidFile), { recursive: true });
      await assert.rejects(runCommand('true', [], { signal: AbortSignal.abort() }), { name: 'AbortError' });
    });

    it('writes the input to stdin and closes it', async () => {
      const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff]);
      assert.deepEqual((await runCommand('cat', [], { input: bytes })).stdout, bytes);
      assert.equal((await runCommand('wc', ['-c'], { input: 'hello' })).stdout.toString().trim(), '5');
      // without input, stdin is empty rather than berthd's own
      assert.equal((await runCommand('cat', [])).stdout.length, 0);
      // a command that reads none of it still answers with its own status
      await commandError(runCommand('sh', ['-c', 'exit 5'], { input: Buffer.alloc(1024 * 1024) }), { exitCode: 5 });
    });

    it('fails clearly when the command is missing', async () => {
      const err = await commandError(runCommand('berth-no-such-command', ['x']), { command: 'berth-no-such-command', exitCode: null, signal: null, timedOut: false });
      assert.match(err.message, /^berth-no-such-command: cannot be started: .*ENOENT/);
    });

    it('says which signal ended the command', async () => {
      await commandError(runCommand('sh', ['-c', 'kill -TERM $$']), { message: 'sh: killed by SIGTERM', exitCode: null, signal: 'SIGTERM' });
    });

    it('kills a command whose output outgrows the limit', async () => {
      await commandError(runCommand('head', ['-c', '100000', '/dev/zero'], { maxBufferBytes: 1000 }), { message: 'head: its output went over 1000 bytes' });
    });

    it('runs in cwd with the environment given', async () => {
      const r = await runCommand('sh', ['-c', 'pwd; echo "$BERTH_TEST"'], { cwd: '/tmp', env: { PATH: process.env.PATH, BERTH_TEST: 'x' } });
      assert.equal(r.stdout.toString(), '/tmp\nx\n');
    });
  });
}

describe('the command runner', () => {
  it('runs commands as its own children, not this process\'s', async () => {
    const runner = CommandRunner.start();
    try {
      useCommandExecutor(runner.execute);
      const parent = Number((await runCommand('sh', ['-c', 'echo $PPID'])).stdout.toString());
      assert.equal(parent, runner.pid);
    } finally {
      useCommandExecutor(undefined);
      runner.close();
    }
  });

  it('ends what it was running as not started when it goes, and the next command forks another', async () => {
    const lost: string[] = [];
    const runner = CommandRunner.start((why) => lost.push(why));
    try {
      useCommandExecutor(runner.execute);
      const first = runner.pid;
      const running = runCommand('sleep', ['10']);
      await sleep(200);
      process.kill(first!, 'SIGKILL');
      await commandError(running, { message: 'sleep: cannot be started: the command runner exited (SIGKILL) before the command ended', exitCode: null });
      assert.deepEqual(lost, ['the command runner exited (SIGKILL) before the command ended']);
      assert.equal((await runCommand('echo', ['again'])).stdout.toString(), 'again\n');
      assert.notEqual(runner.pid, first);
    } finally {
      useCommandExecutor(undefined);
      runner.close();
    }
  });

  it('goes at once when berthd lets go, as berthd would: a command meant to die with its parent dies', async () => {
    const runner = CommandRunner.start();
    const pid = runner.pid!;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-command-runner-'));
    const pidFile = path.join(dir, 'pid');
    void runner.execute({ file: 'setpriv', args: ['--pdeathsig', 'KILL', '--', 'sh', '-c', `echo $$ >${pidFile}; exec sleep 30`], maxBufferBytes: 1024 });
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8') === '') await sleep(20);
    runner.close();
    await waitUntilGone(pid);
    await waitUntilGone(Number(readFileSync(pidFile, 'utf8')));
    rmSync(dir, { recursive: true });
  });
});

describe('pipeThroughCommand', () => {
  it('streams the source through the command', async () => {
    const source = Readable.from([Buffer.from('hello '), Buffer.from('world')]);
    assert.equal(await text(pipeThroughCommand(source, 'tr', ['a-z', 'A-Z'])), 'HELLO WORLD');
  });

  it("fails with a CommandError when the command exits non-zero, whether or not it read its input", async () => {
    const failed = pipeThroughCommand(Readable.from(['data']), 'sh', ['-c', 'cat >/dev/null; echo "bad data" >&2; exit 1']);
    await commandError(text(failed), { message: 'sh: bad data', exitCode: 1 });
    const refused = pipeThroughCommand(Readable.from([Buffer.alloc(4 * 1024 * 1024)]), 'sh', ['-c', 'echo nope >&2; exit 2']);
    await commandError(text(refused), { message: 'sh: nope', exitCode: 2 });
  });

  it('fails with what mapError makes of the CommandError', async () => {
    const out = pipeThroughCommand(Readable.from(['x']), 'sh', ['-c', 'echo corrupt >&2; exit 1'], {
      mapError: (err) => new Error(`invalid data: ${err.message}`, { cause: err }),
    });
    await assert.rejects(text(out), { message: 'invalid data: sh: corrupt' });
  });

  it("fails with the source's error", async () => {
    const source = new Readable({ read() {} });
    const out = pipeThroughCommand(source, 'cat', []);
    source.destroy(new Error('connection lost'));
    await assert.rejects(text(out), { message: 'connection lost' });
  });

  it('fails clearly when the command is missing', async () => {
    const err = await commandError(text(pipeThroughCommand(Readable.from(['x']), 'berth-no-such-command', [])), { exitCode: null });
    assert.match(err.message, /^berth-no-such-command: cannot be started: .*ENOENT/);
  });

  it('kills the command when the stream is destroyed', async () => {
    const out = pipeThroughCommand(new Readable({ read() {} }), 'sh', ['-c', 'echo $$; exec sleep 10']);
    const [pidLine] = (await once(out, 'data')) as [Buffer];
    out.destroy();
    await waitUntilGone(Number(pidLine.toString().trim()));
  });
});
