// The filters every prune endpoint shares (images, containers, later volumes and networks):
// `until` and `label!`, as dockerd reads them.
import { invalidParameter } from '../errors.js';
import { parseTimestampNanos } from './timestamp.js';

/** `until` as a timestamp, an RFC 3339 date, or a Go duration back from now (10m, 24h). */
export function untilMillis(value: string): number {
  const duration = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$/.exec(value);
  if (duration) {
    const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
    return Date.now() - Number(duration[1]) * unit[duration[2]];
  }
  if (/^\d/.test(value) && !value.includes('-')) return Number((parseTimestampNanos('until', value) as bigint) / 1_000_000n);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidParameter(`invalid until filter: ${value}`);
  return ms;
}

/** Whether any `label!` value (`k` or `k=v`) matches the labels: such objects are spared. */
export function negativeLabelMatch(values: string[], labels: Readonly<Record<string, string>>): boolean {
  return values.some((v) => {
    const [k, val] = v.split('=', 2);
    return Object.hasOwn(labels, k) && (val === undefined || labels[k] === val);
  });
}
