// The short seeded fuzz run of npm test: every operation of the 1.41 spec with generated and
// mutated input, then the transport cases, against a berthd of its own (test/fuzz/README.md).
// A failure prints the request that caused it; `npm run fuzz -- --seed 18 --runs 150` replays it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Berthd } from '../helpers/berthd.js';
import { runFuzz, startTarget, stopTarget, type FuzzReport } from './harness.js';
import { SHORT_TRANSPORT } from './transport.js';

const SEED = 18;
const RUNS = 150;

let d: Berthd;
let report: FuzzReport;
before(async () => {
  d = await startTarget();
  report = await runFuzz(d, { seed: SEED, runs: RUNS, transport: SHORT_TRANSPORT });
});
after(() => stopTarget(d));

it(`${RUNS} fuzzed requests (seed ${SEED}) and the transport cases: no crash, no unexplained 500, every error JSON`, () => {
  assert.equal(report.requests, RUNS);
  assert.deepEqual(report.failures, []);
});

it('memory and file descriptors are back near the baseline afterwards', () => {
  assert.ok(report.after.fds <= report.baseline.fds + 2, `${report.after.fds} descriptors open, ${report.baseline.fds} at the baseline: ${JSON.stringify(report.after.fdTargets)}`);
  // what 100 MB bodies grew the heap to is not all given back at once; a leak grows on with each run
  assert.ok(report.after.rssKiB <= report.baseline.rssKiB + 100 * 1024, `RSS ${report.after.rssKiB} KiB, ${report.baseline.rssKiB} KiB at the baseline`);
});

it('the daemon still runs `docker run --rm busybox true`', () => {
  assert.equal(report.dockerRun.code, 0, report.dockerRun.stderr);
});
