// The middle of a set of measurements; rounds of a benchmark are summarised by it, not the mean,
// so one disturbed round does not move the figure.
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], pct: number): number {
  if (values.length === 0) throw new Error('no values to summarise');
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((pct / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
