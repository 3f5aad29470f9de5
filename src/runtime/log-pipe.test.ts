import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, it } from 'node:test';
import { makeLogPipe, openLogPipe, releaseLogPipe } from './log-pipe.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-log-pipe-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Running, not a zombie (this machine's init reaps orphans slowly). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

it('ends the reader of an empty pipe whose writers all went before it opened (a berthd restarted after the run ended)', async () => {
  const bundle = mkdtempSync(path.join(scratch, 'bundle-'));
  const fifo = await makeLogPipe(bundle);
  const keeper = Number(readFileSync(path.join(bundle, 'log-keeper.pid'), 'utf8'));
  assert.ok(alive(keeper), 'the keeper holds the pipe');
  // the run ended and its keeper went, but berthd was killed before it read the end
  await releaseLogPipe(bundle);
  for (let i = 0; i < 50 && alive(keeper); i++) await sleep(20);
  assert.equal(alive(keeper), false, 'the keeper is gone');
  assert.equal(existsSync(path.join(bundle, 'log-keeper.pid')), false);
  // the next berthd's drain opens the pipe, empty, with no writer left, and ends the run's log
  const reader = openLogPipe(bundle);
  reader.resume();
  const ended = once(reader, 'end');
  await releaseLogPipe(bundle);
  // Linux wakes such a reader only for a writer that opened after it: without one, this waits forever
  const outcome = await Promise.race([ended.then(() => 'ended'), sleep(5000).then(() => 'still waiting')]);
  reader.destroy();
  assert.equal(outcome, 'ended');
  assert.ok(existsSync(fifo));
});
