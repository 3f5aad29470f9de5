// The short seeded crash run of npm test: 8 clients, 10 kills -9 of berthd at seeded moments, each
// followed by a restart on the same roots and the checks (checker.ts), then the final cleanup and
// the leak checks (test/crash/README.md). `npm run crash -- --seed 18 --kills 10 --clients 8
// --min-run-ms 800 --max-run-ms 3000` replays it.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { runCrash, type CrashReport } from './harness.js';
import { crashTable } from './report.js';

const SEED = 18;
const KILLS = 10;

let report: CrashReport;
before(async () => {
  report = await runCrash({ seed: SEED, clients: 8, kills: KILLS, minRunMs: 800, maxRunMs: 3000 });
});

it(`${KILLS} kills (seed ${SEED}): every check after each restart and after the final cleanup holds`, () => {
  assert.ok(report.checks.total > 1000, `only ${report.checks.total} checks`);
  assert.deepEqual(report.violations, [], crashTable(report));
});

it('the workload ran every kind of operation, and the kills cut some in flight', () => {
  for (const [kind, c] of Object.entries(report.operations)) assert.ok(c.tried > 0, `${kind} never tried`);
  assert.ok(report.totals.cut > 0, 'no operation was in flight at a kill');
  assert.equal(report.totals.hung, 0);
});

it('the daemon answered no operation wrongly and logged no error', () => {
  assert.deepEqual(report.anomalies, []);
  assert.deepEqual(report.daemonErrors, []);
});
