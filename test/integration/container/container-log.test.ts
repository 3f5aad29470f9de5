// Following a real container's log until it exits. This holds the fact the follower relies on:
// conmon has written all of the container's output to the log before it writes the exit file, so
// "the exit file is there" and then "read to the end of the log" gives everything.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { readContainerLog } from '../../../src/container/logs/container-log.js';
import { k8sFileCodec } from '../../../src/container/logs/log-codecs.js';
import { ConmonFixture } from '../../helpers/conmon-fixture.js';

const fixture = new ConmonFixture();
after(async () => {
  await fixture.cleanup();
  assert.deepEqual(fixture.liveConmons(), [], 'a conmon of these tests is still running');
});

const LINES = 20_000;
// a burst on both streams right before the exit, so a conmon that wrote the exit file before draining would be caught
const BURST = `i=0; while [ $i -lt ${LINES} ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done; printf tail`;

describe('a real container log', () => {
  it('is complete when the exit file appears', async () => {
    for (let round = 0; round < 3; round++) {
      const c = await fixture.create(['sh', '-c', BURST]);
      fixture.start(c);
      await c.ended;
      const atExit = statSync(c.opts.logPath).size;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(statSync(c.opts.logPath).size, atExit, `round ${round}: the log grew after the exit file`);
    }
  });

  it('is followed from before the start until the container ends, with nothing lost', async () => {
    const c = await fixture.create(['sh', '-c', `sleep 0.2; ${BURST}`]);
    const got = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const reading = (async () => {
      for await (const e of readContainerLog(c.opts.logPath, k8sFileCodec, { stdout: true, stderr: true, follow: true, ended: c.ended })) got[e.stream].push(e.data);
    })();
    fixture.start(c);
    await reading;
    // conmon splits lines across its reads into partial records; joined, each stream is whole,
    // down to the closing printf without a newline
    const lines = (prefix: string) => Array.from({ length: LINES }, (_, i) => `${prefix} ${i}\n`).join('');
    assert.equal(Buffer.concat(got.stdout).toString(), `${lines('out')}tail`);
    assert.equal(Buffer.concat(got.stderr).toString(), lines('err'));
  });
});
