// Attach sessions against real containers under conmon: `echo hi | docker run -i busybox cat`
// (attached before the start, the client's stdin ends, output goes on until the container ends),
// log replay, and detaching from a TTY with the detach keys while the container runs on.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runAttach } from '../../../src/container/attach/attach-session.js';
import type { FrameSink } from '../../../src/lib/stream-session.js';
import { k8sFileCodec } from '../../../src/container/logs/log-codecs.js';
import { ConmonFixture, type RunningContainer } from '../../helpers/conmon-fixture.js';

const fixture = new ConmonFixture();
after(async () => {
  await fixture.cleanup();
  assert.deepEqual(fixture.liveConmons(), [], 'a conmon of these tests is still running');
});

function sink(): FrameSink & { text(stream?: 'stdout' | 'stderr'): string } {
  const got: Array<{ stream: 'stdout' | 'stderr'; data: Buffer }> = [];
  return {
    async write(stream, data) {
      got.push({ stream, data });
    },
    text: (stream) => Buffer.concat(got.filter((g) => stream === undefined || g.stream === stream).map((g) => g.data)).toString(),
  };
}

function target(c: RunningContainer, started?: Promise<unknown>) {
  return {
    log: { file: c.opts.logPath, codec: k8sFileCodec },
    tty: c.opts.terminal,
    attachSocketPath: c.started.attachSocketPath,
    ended: c.ended,
    started,
    stdinOpen: true,
    stdinOnce: true,
  };
}

describe('runAttach', () => {
  it('runs `echo hi | cat`: attached before the start, stdin ends, output flows until the container ends', async () => {
    const c = await fixture.create(['sh', '-c', 'cat; echo done >&2'], { stdin: true });
    let start!: () => void;
    const started = new Promise<void>((r) => (start = r));
    const out = sink();
    const session = runAttach({
      container: target(c, started),
      opts: { stdin: true, stdout: true, stderr: true, stream: true, logs: false },
      out,
      input: Readable.from([Buffer.from('hi\n')]),
      signal: new AbortController().signal,
    });
    await new Promise((r) => setTimeout(r, 100));
    fixture.start(c);
    start();
    assert.equal(await session, 'ended');
    assert.equal(out.text('stdout'), 'hi\n');
    assert.equal(out.text('stderr'), 'done\n');
    assert.equal((await c.ended).exitCode, 0);
  });

  it('replays the log without following when stream=0, choosing streams', async () => {
    const c = await fixture.create(['sh', '-c', 'echo out; echo err >&2']);
    fixture.start(c);
    await c.ended;
    const out = sink();
    const outcome = await runAttach({
      container: { ...target(c), stdinOpen: false },
      opts: { stdin: false, stdout: false, stderr: true, stream: false, logs: true },
      out,
      signal: new AbortController().signal,
    });
    assert.equal(outcome, 'ended');
    assert.equal(out.text(), 'err\n');
  });

  it('detaches from a TTY on the detach keys, leaving the container running', async () => {
    const c = await fixture.create(['sh'], { terminal: true, stdin: true, leaveStdinOpen: true });
    fixture.start(c);
    const out = sink();
    const input = new Readable({ read() {} });
    const session = runAttach({
      container: { ...target(c), tty: true },
      opts: { stdin: true, stdout: true, stderr: true, stream: true, logs: false, detachKeys: Buffer.from([24]) },
      out,
      input,
      signal: new AbortController().signal,
    });
    input.push(Buffer.from('echo hel""lo\n'));
    const deadline = Date.now() + 10_000;
    while (!out.text().includes('hello\r\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.match(out.text(), /hello\r\n/);
    input.push(Buffer.from([24]));
    assert.equal(await session, 'detached');
    const settled = await Promise.race([c.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('running'), 300))]);
    assert.equal(settled, 'running');
  });

  it('ends as client-gone when the signal fires', async () => {
    const c = await fixture.create(['sleep', '100']);
    fixture.start(c);
    const ac = new AbortController();
    const session = runAttach({
      container: { ...target(c), stdinOpen: false },
      opts: { stdin: false, stdout: true, stderr: true, stream: true, logs: true },
      out: sink(),
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 100);
    assert.equal(await session, 'client-gone');
  });
});
