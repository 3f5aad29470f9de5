// The stdin relay into real containers under conmon: bytes reach `cat` and come back in the log,
// ending the relay closes the container's stdin (so cat ends), unless conmon leaves stdin open.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { openStdinRelay, StdinRelayError } from '../../../src/runtime/stdin-relay.js';
import { ConmonFixture } from '../../helpers/conmon-fixture.js';

const fixture = new ConmonFixture();
after(async () => {
  await fixture.cleanup();
  assert.deepEqual(fixture.liveConmons(), [], 'a conmon of these tests is still running');
});

function logText(file: string): string {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' ')).join('|');
}

async function until(what: string, test: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('openStdinRelay', () => {
  it("feeds cat's stdin, and its end closes the container's stdin so cat ends", async () => {
    const c = await fixture.create(['cat'], { stdin: true });
    fixture.start(c);
    const relay = openStdinRelay(c.started.attachSocketPath);
    await relay.write(Buffer.from('hello\n'));
    await until('cat to echo', () => {
      try {
        return logText(c.opts.logPath) === 'hello';
      } catch {
        return false;
      }
    });
    await relay.write(Buffer.from('no newline'));
    relay.end();
    const exit = await c.ended;
    assert.equal(exit.exitCode, 0);
    await relay.closed;
    assert.equal(logText(c.opts.logPath), 'hello|no newline');
  });

  it('passes large input whole, in order', async () => {
    const c = await fixture.create(['cat'], { stdin: true });
    fixture.start(c);
    const relay = openStdinRelay(c.started.attachSocketPath);
    const line = Buffer.alloc(1000, 0x61);
    for (let i = 0; i < 500; i++) await relay.write(Buffer.concat([line, Buffer.from('\n')]));
    relay.end();
    assert.equal((await c.ended).exitCode, 0);
    await relay.closed;
    const text = readFileSync(c.opts.logPath, 'utf8');
    // conmon splits long reads into partial records: join them back
    const joined = text.split('\n').filter(Boolean).map((l) => {
      const [, , tag, ...rest] = l.split(' ');
      return rest.join(' ') + (tag === 'F' ? '\n' : '');
    }).join('');
    assert.equal(joined, `${line.toString()}\n`.repeat(500));
  });

  it('leaves stdin open when conmon was told to, so a later relay can write on', async () => {
    const c = await fixture.create(['cat'], { stdin: true, leaveStdinOpen: true });
    fixture.start(c);
    const first = openStdinRelay(c.started.attachSocketPath);
    await first.write(Buffer.from('one\n'));
    first.end();
    await first.closed;
    const second = openStdinRelay(c.started.attachSocketPath);
    await second.write(Buffer.from('two\n'));
    await until('cat to echo both', () => logText(c.opts.logPath) === 'one|two');
    second.close();
    await second.closed;
    fixture.runc('kill', c.opts.containerId, 'KILL');
    assert.equal((await c.ended).exitCode, 137);
  });

  it('fails with a StdinRelayError when there is no socket', async () => {
    const relay = openStdinRelay(`${fixture.root}/no-such/attach`);
    await assert.rejects(relay.closed, (err: unknown) => err instanceof StdinRelayError && /No such file or directory/.test(err.message));
    await assert.rejects(relay.write(Buffer.from('x')), StdinRelayError);
  });
});
