import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { healthTimings, LimitedOutput, probeCommand, recordProbeResult, startingHealth, type HealthState } from './health-check.js';

const MS = 1_000_000;
const started = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(started.getTime() + ms);

function apply(state: HealthState, exitCodes: number[], opts: { retries?: number; startPeriodMs?: number; firstAtMs?: number } = {}): HealthState {
  const timings = healthTimings({ Retries: opts.retries, StartPeriod: (opts.startPeriodMs ?? 0) * MS });
  let t = opts.firstAtMs ?? 1000;
  for (const exitCode of exitCodes) {
    state = recordProbeResult(state, { start: at(t), end: at(t + 5), exitCode, output: `${exitCode}` }, { timings, startedAt: started });
    t += 1000;
  }
  return state;
}

describe('health checks', () => {
  it('runs CMD as given and CMD-SHELL through the container’s shell', () => {
    assert.deepEqual(probeCommand({ Test: ['CMD', 'curl', '-f', 'x'] }), ['curl', '-f', 'x']);
    assert.deepEqual(probeCommand({ Test: ['CMD-SHELL', 'test -f /ok'] }), ['/bin/sh', '-c', 'test -f /ok']);
    assert.deepEqual(probeCommand({ Test: ['CMD-SHELL', 'test -f /ok'] }, ['/bin/ash', '-eo']), ['/bin/ash', '-eo', 'test -f /ok']);
    assert.deepEqual(probeCommand({ Test: ['CMD-SHELL', 'x'] }, []), ['/bin/sh', '-c', 'x']);
    for (const Test of [['NONE'], [], null, undefined, ['BOGUS', 'x']]) assert.equal(probeCommand({ Test }), undefined, JSON.stringify(Test));
  });

  it('takes dockerd’s defaults for zeros and words the timeout as Go prints durations', () => {
    assert.deepEqual(healthTimings({}), { intervalMs: 30_000, timeoutMs: 30_000, startPeriodMs: 0, retries: 3, timeoutMessage: 'Health check exceeded timeout (30s)' });
    assert.deepEqual(healthTimings({ Interval: 0, Timeout: 0, StartPeriod: 0, Retries: 0 }).retries, 3);
    assert.equal(healthTimings({ Retries: -2 }).retries, 3);
    assert.deepEqual(healthTimings({ Interval: 20 * MS, Timeout: 1500 * MS, StartPeriod: 90_000 * MS, Retries: 1 }), {
      intervalMs: 20,
      timeoutMs: 1500,
      startPeriodMs: 90_000,
      retries: 1,
      timeoutMessage: 'Health check exceeded timeout (1.5s)',
    });
  });

  it('is healthy after a success and unhealthy once the failures reach Retries', () => {
    let s = apply(startingHealth(), [1, 1]);
    assert.deepEqual([s.Status, s.FailingStreak], ['starting', 2]);
    s = apply(s, [2]);
    assert.deepEqual([s.Status, s.FailingStreak], ['unhealthy', 3]);
    s = apply(s, [0]);
    assert.deepEqual([s.Status, s.FailingStreak], ['healthy', 0]);
    // any exit code other than 0 is a failure: 2 (reserved by the docs) and the -1 of timeouts and errors
    s = apply(s, [2, -1, 255], { retries: 4 });
    assert.deepEqual([s.Status, s.FailingStreak], ['healthy', 3]);
    s = apply(s, [1], { retries: 4 });
    assert.deepEqual([s.Status, s.FailingStreak], ['unhealthy', 4]);
  });

  it('does not count failures within the start period while still starting', () => {
    let s = apply(startingHealth(), [1, 1, 1, 1], { startPeriodMs: 4500 });
    assert.deepEqual([s.Status, s.FailingStreak, s.Log.length], ['starting', 0, 4]);
    // the fifth starts at 5000 ms, past the start period
    s = apply(s, [1], { startPeriodMs: 4500, firstAtMs: 5000 });
    assert.deepEqual([s.Status, s.FailingStreak], ['starting', 1]);
    // once healthy, a failure within the start period counts
    s = apply(startingHealth(), [0, 1], { startPeriodMs: 60_000 });
    assert.deepEqual([s.Status, s.FailingStreak], ['healthy', 1]);
  });

  it('keeps the last five results with their times, and the old log on restart', () => {
    const s = apply(startingHealth(), [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(s.Log.map((e) => e.ExitCode), [3, 4, 5, 6, 7]);
    assert.deepEqual(s.Log[0], { Start: s.Log[0].Start, End: s.Log[0].End, ExitCode: 3, Output: '3' });
    assert.equal(Date.parse(s.Log[0].Start), at(3000).getTime());
    assert.equal(Date.parse(s.Log[0].End), at(3005).getTime());
    assert.match(s.Log[0].Start, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    const restarted = startingHealth({ ...s, Status: 'unhealthy' });
    assert.deepEqual(restarted, { Status: 'starting', FailingStreak: 0, Log: s.Log });
  });

  it('keeps 4096 bytes of output and marks the cut with "..."', () => {
    const out = new LimitedOutput();
    out.write(Buffer.from('a'.repeat(4000)));
    out.write(Buffer.from('b'.repeat(200)));
    out.write(Buffer.from('c'));
    assert.equal(out.toString(), `${'a'.repeat(4000)}${'b'.repeat(96)}...`);
    const exact = new LimitedOutput();
    exact.write(Buffer.alloc(4096, 'x'));
    assert.equal(exact.toString(), 'x'.repeat(4096));
    exact.write(Buffer.alloc(0));
    assert.equal(exact.toString(), 'x'.repeat(4096));
  });
});
