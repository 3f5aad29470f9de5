// Timestamps in query parameters as dockerd reads them (api/types/time ParseTimestamps):
// seconds since the epoch with an optional fractional part, "1600000000.000000001".
import { invalidParameter } from '../errors.js';

const NANOS_PER_SECOND = 1_000_000_000n;
const timestamp = /^([-+]?\d+)(?:\.(\d+))?$/;

/** Nanoseconds since the epoch, or undefined for an absent or empty value. */
export function parseTimestampNanos(name: string, value: string | null): bigint | undefined {
  if (value === null || value === '') return undefined;
  const m = timestamp.exec(value);
  if (!m) {
    throw invalidParameter(`invalid value for ${name}: "${value}" is not a timestamp (seconds since the epoch, with an optional fraction)`);
  }
  const seconds = BigInt(m[1]);
  const fraction = m[2] ?? '';
  const nanos = fraction === '' ? 0n : BigInt(fraction.padEnd(9, '0').slice(0, 9));
  return seconds * NANOS_PER_SECOND + nanos;
}

/** Wall-clock time in nanoseconds since the epoch (microsecond resolution). */
export function nowNanos(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
}

/** RFC 3339 with nanoseconds and the local offset, as Go's time.RFC3339Nano prints it. */
export function formatRfc3339Nano(nanos: bigint): string {
  const ms = Number(nanos / 1_000_000n);
  const date = new Date(ms);
  const offsetMin = -date.getTimezoneOffset();
  const local = new Date(ms + offsetMin * 60_000);
  const base = local.toISOString().slice(0, 19);
  const frac = (nanos % NANOS_PER_SECOND).toString().padStart(9, '0').replace(/0+$/, '');
  const zone = offsetMin === 0 ? 'Z' : `${offsetMin > 0 ? '+' : '-'}${pad2(Math.abs(offsetMin) / 60)}:${pad2(Math.abs(offsetMin) % 60)}`;
  return `${base}${frac ? '.' + frac : ''}${zone}`;
}

/** UTC with all nine fraction digits: dockerd's jsonmessage.RFC3339NanoFixed, as `docker logs --timestamps` prints a line's time. */
export function formatRfc3339NanoFixed(ns: bigint): string {
  let seconds = ns / NANOS_PER_SECOND;
  let frac = ns % NANOS_PER_SECOND;
  if (frac < 0n) {
    frac += NANOS_PER_SECOND;
    seconds -= 1n;
  }
  const iso = new Date(Number(seconds) * 1000).toISOString();
  return `${iso.slice(0, 19)}.${frac.toString().padStart(9, '0')}Z`;
}

function pad2(n: number): string {
  return String(Math.floor(n)).padStart(2, '0');
}
