// The monitor on the real clock with intervals of tens of milliseconds; the probe is a function of
// the test's (the monitor's logic does not depend on what runs the command: see
// test/integration/runtime/exec.test.ts for probes in a real container).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { HealthMonitor, type HealthMonitorOptions, type HealthProbe, type HealthState } from './health-monitor.js';

const MS = 1_000_000;
const monitors: HealthMonitor[] = [];

afterEach(async () => {
  await Promise.all(monitors.splice(0).map((m) => m.stop()));
});

interface Call {
  cmd: string[];
  startMs: number;
  endMs?: number;
  signal: AbortSignal;
}

/** A probe that answers with the exit codes given, one per call (the last one after that), taking durationMs. */
function scriptedProbe(exitCodes: number[], durationMs = 0): { probe: HealthProbe; calls: Call[] } {
  const calls: Call[] = [];
  const probe: HealthProbe = async (cmd, _timeoutMs, signal) => {
    const call: Call = { cmd, startMs: performance.now(), signal };
    calls.push(call);
    await sleep(durationMs);
    call.endMs = performance.now();
    const exitCode = exitCodes[Math.min(calls.length - 1, exitCodes.length - 1)];
    return { exitCode, output: `run ${calls.length}\n` };
  };
  return { probe, calls };
}

function monitor(opts: Partial<HealthMonitorOptions> & Pick<HealthMonitorOptions, 'probe'>): { m: HealthMonitor; changes: Array<[HealthState, boolean]> } {
  const changes: Array<[HealthState, boolean]> = [];
  const m = new HealthMonitor({ config: { Test: ['CMD', 'check'], Interval: 20 * MS }, onChange: (s, c) => changes.push([s, c]), ...opts });
  monitors.push(m);
  return { m, changes };
}

async function until(what: string, test: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

describe('HealthMonitor', () => {
  it('probes first after one Interval, then an Interval after each probe ended, never two at once', async () => {
    const { probe, calls } = scriptedProbe([0], 30);
    const { m } = monitor({ probe, config: { Test: ['CMD-SHELL', 'exit 0'], Interval: 40 * MS } });
    const startMs = performance.now();
    m.start();
    await until('four probes', () => calls.filter((c) => c.endMs).length >= 4);
    await m.stop();
    assert.deepEqual(calls[0].cmd, ['/bin/sh', '-c', 'exit 0']);
    // timers may fire a little early by the clock they are measured with
    assert.ok(calls[0].startMs - startMs >= 39, `first probe after ${calls[0].startMs - startMs} ms`);
    for (let i = 1; i < calls.length; i++) {
      const gap = calls[i].startMs - (calls[i - 1].endMs ?? Infinity);
      assert.ok(gap >= 39, `probe ${i} started ${gap} ms after the previous one ended`);
    }
  });

  it('goes starting → unhealthy after Retries failures → healthy, telling when the status changed', async () => {
    const { probe, calls } = scriptedProbe([1, 3, 1, 0, 0]);
    const { m, changes } = monitor({ probe, config: { Test: ['CMD', 'check'], Interval: 10 * MS, Retries: 3 } });
    assert.deepEqual(m.state, { Status: 'starting', FailingStreak: 0, Log: [] });
    m.start();
    await until('five results', () => changes.length >= 5);
    await m.stop();
    assert.deepEqual(
      changes.slice(0, 5).map(([s, changed]) => [s.Status, s.FailingStreak, changed]),
      [
        ['starting', 1, false],
        ['starting', 2, false],
        ['unhealthy', 3, true],
        ['healthy', 0, true],
        ['healthy', 0, false],
      ],
    );
    const last = changes[4][0];
    assert.deepEqual(last.Log.map((e) => [e.ExitCode, e.Output]), [[1, 'run 1\n'], [3, 'run 2\n'], [1, 'run 3\n'], [0, 'run 4\n'], [0, 'run 5\n']]);
    for (const e of last.Log) assert.ok(Date.parse(e.End) >= Date.parse(e.Start));
    assert.deepEqual(calls[0].cmd, ['check']);
    assert.deepEqual(m.state.Log.slice(0, 5), last.Log);
  });

  it('kills a probe over its Timeout, records -1 at once, and waits for the probe to end', async () => {
    const calls: Array<Call & { endDateMs?: number }> = [];
    let running = 0;
    let maxRunning = 0;
    const probe: HealthProbe = async (cmd, timeoutMs, signal) => {
      const call: (typeof calls)[number] = { cmd, startMs: performance.now(), signal };
      calls.push(call);
      assert.equal(timeoutMs, 25);
      maxRunning = Math.max(maxRunning, ++running);
      // like a process that takes a while to die once killed
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      await sleep(30);
      running--;
      call.endMs = performance.now();
      call.endDateMs = Date.now();
      return { exitCode: 137, output: 'killed' };
    };
    const { m, changes } = monitor({ probe, config: { Test: ['CMD', 'sleep', '100'], Interval: 10 * MS, Timeout: 25 * MS, Retries: 2 } });
    m.start();
    await until('three results', () => changes.length >= 3);
    await m.stop();
    assert.deepEqual(
      changes.slice(0, 3).map(([s]) => [s.Status, s.FailingStreak, s.Log.at(-1)?.ExitCode, s.Log.at(-1)?.Output]),
      [
        ['starting', 1, -1, 'Health check exceeded timeout (25ms)'],
        ['unhealthy', 2, -1, 'Health check exceeded timeout (25ms)'],
        ['unhealthy', 3, -1, 'Health check exceeded timeout (25ms)'],
      ],
    );
    const first = changes[0][0].Log[0];
    const tookMs = Date.parse(first.End) - Date.parse(first.Start);
    assert.ok(tookMs >= 24, `timed out after ${tookMs} ms`);
    // recorded when the time was up, not when the probe had ended (30 ms after its abort)
    assert.ok(Date.parse(first.End) <= (calls[0].endDateMs ?? 0) - 25, `recorded at ${first.End}, the probe ended at ${calls[0].endDateMs}`);
    assert.ok(calls.every((c) => c.signal.aborted));
    assert.equal(maxRunning, 1);
    for (let i = 1; i < calls.length; i++) assert.ok(calls[i].startMs - (calls[i - 1].endMs ?? Infinity) >= 9);
  });

  it('records a probe that cannot run as -1 with its message', async () => {
    const probe: HealthProbe = async () => {
      throw new Error('OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown');
    };
    const { m, changes } = monitor({ probe, config: { Test: ['CMD', 'nope'], Interval: 10 * MS, Retries: 1 } });
    m.start();
    await until('a result', () => changes.length >= 1);
    await m.stop();
    assert.deepEqual(changes[0][0].Log.map((e) => [e.ExitCode, e.Output]), [
      [-1, 'OCI runtime exec failed: exec failed: unable to start container process: exec: "nope": executable file not found in $PATH: unknown'],
    ]);
    assert.deepEqual([changes[0][0].Status, changes[0][1]], ['unhealthy', true]);
  });

  it('does not count failures within the start period while starting', async () => {
    const { probe } = scriptedProbe([1]);
    const { m, changes } = monitor({ probe, config: { Test: ['CMD', 'check'], Interval: 10 * MS, StartPeriod: 60_000 * MS, Retries: 1 } });
    m.start();
    await until('three results', () => changes.length >= 3);
    await m.stop();
    assert.deepEqual(changes.slice(0, 3).map(([s, c]) => [s.Status, s.FailingStreak, c]), [['starting', 0, false], ['starting', 0, false], ['starting', 0, false]]);
    // a start period counted from a StartedAt long past is over
    const old = monitor({ probe, startedAt: new Date(Date.now() - 120_000), config: { Test: ['CMD', 'check'], Interval: 10 * MS, StartPeriod: 60_000 * MS, Retries: 1 } });
    old.m.start();
    await until('a result', () => old.changes.length >= 1);
    assert.equal(old.changes[0][0].Status, 'unhealthy');
  });

  it('stops: aborts the probe under way, drops its result and probes no more', async () => {
    const calls: Call[] = [];
    const slow: HealthProbe = async (cmd, _timeoutMs, signal) => {
      calls.push({ cmd, startMs: performance.now(), signal });
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      await sleep(20);
      return { exitCode: 0, output: 'late' };
    };
    const { m, changes } = monitor({ probe: slow, config: { Test: ['CMD', 'check'], Interval: 10 * MS, Timeout: 60_000 * MS } });
    m.start();
    await until('a probe', () => calls.length === 1);
    const stoppedAt = performance.now();
    await m.stop();
    assert.ok(performance.now() - stoppedAt >= 19, 'stop() waited for the probe to end');
    assert.ok(calls[0].signal.aborted);
    await sleep(50);
    assert.equal(calls.length, 1);
    assert.deepEqual(changes, []);
    assert.deepEqual(m.state, { Status: 'starting', FailingStreak: 0, Log: [] });
  });

  it('goes on from the health it is given, and restarts after a stop without overlapping the old probe', async () => {
    const initial: HealthState = {
      Status: 'unhealthy',
      FailingStreak: 7,
      Log: [1, 2, 3, 4, 5].map((n) => ({ Start: `s${n}`, End: `e${n}`, ExitCode: 1, Output: `${n}` })),
    };
    const { probe, calls } = scriptedProbe([0], 25);
    const { m, changes } = monitor({ probe, initial, config: { Test: ['CMD', 'check'], Interval: 10 * MS } });
    m.start();
    await until('a probe', () => calls.length === 1);
    void m.stop();
    m.start();
    await until('a result', () => changes.length >= 1);
    await m.stop();
    // the first probe's result came after the stop: dropped; the second one counts
    assert.equal(calls.length, 2);
    assert.ok(calls[1].startMs >= (calls[0].endMs ?? Infinity));
    assert.deepEqual([changes[0][0].Status, changes[0][0].FailingStreak, changes[0][1]], ['healthy', 0, true]);
    assert.deepEqual(changes[0][0].Log.map((e) => e.Output), ['2', '3', '4', '5', 'run 2\n']);
  });

  it('waits an Interval longer than Node’s timers reach (24.8 days)', async () => {
    const { probe, calls } = scriptedProbe([0]);
    const { m } = monitor({ probe, config: { Test: ['CMD', 'check'], Interval: 40 * 86_400_000 * MS } });
    m.start();
    await sleep(50);
    await m.stop();
    assert.equal(calls.length, 0);
  });

  it('refuses a config without a command to run', () => {
    for (const Test of [['NONE'], [], ['CMD'], ['WHAT', 'x']]) {
      assert.throws(() => new HealthMonitor({ config: { Test }, probe: async () => ({ exitCode: 0, output: '' }), onChange: () => {} }), /no health check to run/);
    }
  });
});
