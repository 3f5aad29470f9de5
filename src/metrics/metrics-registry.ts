// Counters and histograms kept by the daemon, and gauges read when scraped: the few metric kinds
// berth exposes, each a family with labelled series, gathered for the exposition in name order.
import type { Labels, MetricFamily } from './exposition.js';

/** Prometheus client_golang's DefBuckets, which dockerd's timers use (seconds). */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const key = (labels: Labels) => JSON.stringify(Object.entries(labels));

export class Counter {
  private readonly series = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    /** a counter with labels has no series before its first increment; one without has 0 */
    private readonly labelled = false,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const s = this.series.get(key(labels)) ?? { labels, value: 0 };
    s.value += by;
    this.series.set(key(labels), s);
  }

  family(): MetricFamily {
    const samples = this.series.size === 0 && !this.labelled ? [{ labels: {}, value: 0 }] : [...this.series.values()];
    return { name: this.name, help: this.help, type: 'counter', samples };
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; buckets: readonly number[]; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[] = DEFAULT_BUCKETS,
  ) {}

  /** Makes the series exist with no observation, so that it is scraped before its first one. */
  declare(labels: Labels): void {
    if (!this.series.has(key(labels))) this.series.set(key(labels), { labels, buckets: this.buckets, counts: this.buckets.map(() => 0), sum: 0, count: 0 });
  }

  observe(labels: Labels, value: number): void {
    this.declare(labels);
    const s = this.series.get(key(labels))!;
    const i = this.buckets.findIndex((le) => value <= le);
    if (i >= 0) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  /** Adds observations counted elsewhere: per bucket (the count over the last bound goes in `count` only), their sum and number. */
  merge(labels: Labels, counts: readonly number[], sum: number, count: number): void {
    this.declare(labels);
    const s = this.series.get(key(labels))!;
    counts.forEach((n, i) => (s.counts[i] += n));
    s.sum += sum;
    s.count += count;
  }

  /** Starts timing; the function returned observes the seconds since, once. */
  startTimer(labels: Labels): () => void {
    const start = process.hrtime.bigint();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    };
  }

  family(): MetricFamily {
    return { name: this.name, help: this.help, type: 'histogram', samples: [...this.series.values()] };
  }
}

/** A gauge, or a counter another part keeps, whose series are read when scraped. */
export class ScrapedMetric {
  constructor(
    readonly type: 'gauge' | 'counter',
    readonly name: string,
    readonly help: string,
    private readonly read: () => ReadonlyArray<{ labels: Labels; value: number }>,
  ) {}

  family(): MetricFamily {
    return { name: this.name, help: this.help, type: this.type, samples: this.read() };
  }
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Counter | Histogram | ScrapedMetric>();

  add<M extends Counter | Histogram | ScrapedMetric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.metrics.set(metric.name, metric);
    return metric;
  }

  gather(): MetricFamily[] {
    return [...this.metrics.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((m) => m.family());
  }
}
