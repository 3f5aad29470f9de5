// The event loop's delay, measured by Node itself (perf_hooks.monitorEventLoopDelay: a timer every
// RESOLUTION_MS whose intervals go into an HDR histogram, in C++, with no JavaScript per tick) and
// folded into a Prometheus histogram at each scrape. An interval is the resolution plus how late the
// timer fired; the delay is that lateness. The monitor keeps percentiles, not bucket counts: each
// bucket's count is the share of intervals at or under its bound, found by bisecting the percentiles.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Histogram } from './metrics-registry.js';

export const RESOLUTION_MS = 10;

/** The delay's buckets, in seconds: fine under 50 ms, where a healthy loop stays. */
export const EVENT_LOOP_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class EventLoopDelay {
  private readonly monitor: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });

  constructor(private readonly histogram: Histogram) {
    this.monitor.enable();
  }

  /** Moves the intervals recorded since the last fold into the histogram, and starts the monitor afresh. */
  fold(): void {
    const m = this.monitor;
    const count = m.count;
    if (count === 0) return;
    const resolutionNs = RESOLUTION_MS * 1e6;
    let below = 0;
    const counts = EVENT_LOOP_BUCKETS.map((le) => {
      const atOrUnder = Math.round((shareAtOrUnder(m, le * 1e9 + resolutionNs) / 100) * count);
      const inBucket = Math.max(0, atOrUnder - below);
      below = Math.max(below, atOrUnder);
      return inBucket;
    });
    const sumSeconds = Math.max(0, (m.mean - resolutionNs) * count) / 1e9;
    this.histogram.merge({}, counts, sumSeconds, count);
    m.reset();
  }

  stop(): void {
    this.monitor.disable();
  }
}

/** The largest percentile (0–100) whose value is at or under `ns`: the share of intervals that short. */
function shareAtOrUnder(m: IntervalHistogram, ns: number): number {
  if (m.min > ns) return 0;
  if (m.max <= ns) return 100;
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 24; i++) {
    const mid = (lo + hi) / 2;
    if (m.percentile(mid) <= ns) lo = mid;
    else hi = mid;
  }
  return lo;
}
