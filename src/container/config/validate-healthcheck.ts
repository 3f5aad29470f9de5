// HealthConfig checks as dockerd 20.10's validateHealthCheck: durations are 0 (inherit) or at least
// 1 ms. The spec marks the minimum as 1.40+, but dockerd 20.10 enforces it at 1.25 too (asked).
import { invalidParameter } from '../../errors.js';
import type { HealthConfig } from './types.js';

const minimumDurationNs = 1_000_000;

export function validateHealthcheck(h: HealthConfig | undefined, minimum: boolean): void {
  if (!h) return;
  if ((h.Retries ?? 0) < 0) throw invalidParameter('Retries in Healthcheck cannot be negative');
  if (!minimum) return;
  for (const field of ['Interval', 'Timeout'] as const) checkDuration(h[field], field);
  checkDuration(h.StartPeriod, 'StartPeriod');
}

function checkDuration(ns: number | undefined, field: string): void {
  if (ns && ns < minimumDurationNs) throw invalidParameter(`${field} in Healthcheck cannot be less than 1ms`);
}
