// A container's output reaches berthd through a pipe held open by a keeper (src/runtime/log-pipe.ts):
// while berthd is stopped the container's writes wait in the pipe and then block, and the next
// berthd writes them to the log; output written by a run that ended while berthd was away is there
// too; and once a run is over, no keeper is left.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, sweep, teardown } from '../../helpers/containers.js';
import { logKeepersUnder } from '../../helpers/leftovers.js';
import { untilDefined as until } from '../../helpers/until.js';

const LINES = 30_000;
/** numbered lines, fast enough to fill the pipe while berthd is down */
const WRITE = `i=0; while [ $i -lt ${LINES} ]; do echo "line $i"; i=$((i+1)); done; echo done`;

describe('the log pipe across berthd restarts', () => {
  let d: Berthd | undefined;
  after(async () => {
    if (d !== undefined) await teardown(d);
  });

  for (const how of ['SIGTERM', 'SIGKILL'] as const) {
    test(`after ${how}: output written while berthd was away is in the log, in order, and no keeper is left`, async () => {
      d = await startWithBusybox();
      const old = d;
      const writer = (await d.docker(['run', '-d', '--name', 'writer', 'busybox', 'sh', '-c', `sleep 0.5; ${WRITE}`])).stdout.trim();
      const ender = (await d.docker(['run', '-d', '--name', 'ender', 'busybox', 'sh', '-c', 'sleep 1; echo last words; exit 3'])).stdout.trim();
      assert.equal(logKeepersUnder(old.dir).length, 2, "a keeper holds each running container's pipe");
      await d.stop(how);
      // both go on without berthd: the writer until its pipe is full, the other to its end
      await new Promise((r) => setTimeout(r, 2000));
      d = await Berthd.start({ dataRoot: old.dataRoot, socket: old.socket, execRoot: `${old.dir}/exec`, netns: old.netns });
      const daemon = d;
      assert.equal((await daemon.docker(['wait', writer])).stdout.trim(), '0');
      const lines = (await daemon.docker(['logs', writer])).stdout.trim().split('\n');
      assert.equal(lines.at(-1), 'done');
      const numbers = lines.slice(0, -1).map((l) => Number(/^line (\d+)$/.exec(l)?.[1] ?? NaN));
      // a berthd killed with -9 may lose what it had read and not yet written; never a repeat or a reordering
      if (how === 'SIGTERM') assert.equal(numbers.length, LINES);
      numbers.forEach((n, i) => i > 0 && assert.ok(n > numbers[i - 1], `line ${i} is ${n} after ${numbers[i - 1]}`));
      assert.equal((await daemon.docker(['logs', ender])).stdout, 'last words\n');
      assert.equal(JSON.parse((await daemon.docker(['inspect', ender])).stdout)[0].State.ExitCode, 3);
      await until('no keeper left', async () => (logKeepersUnder(old.dir).length === 0 ? true : undefined));
      await daemon.docker(['rm', writer, ender]);
      await teardown(daemon);
      d = undefined;
      sweep(old.dir);
    });
  }
});
