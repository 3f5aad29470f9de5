// Docker's health checks as data (moby v20.10.27 daemon/health.go): the command a Healthcheck
// runs, its timings with their defaults, and how one probe's result changes the container's
// health. Pure: health-monitor.ts runs the probes on a clock.
import type { HealthConfig } from '../config/types.js';
import { formatGoDuration } from '../../lib/go-duration.js';
import { formatRfc3339Nano } from '../../lib/timestamp.js';

export type HealthStatus = 'starting' | 'healthy' | 'unhealthy';

/** One probe's result, as State.Health.Log shows it. */
export interface HealthLogEntry {
  Start: string;
  End: string;
  ExitCode: number;
  Output: string;
}

/** State.Health. */
export interface HealthState {
  Status: HealthStatus;
  FailingStreak: number;
  Log: HealthLogEntry[];
}

/** A probe's output beyond this many bytes is dropped, and "..." says so. */
export const MAX_OUTPUT_BYTES = 4096;
/** State.Health.Log keeps the last results only. */
export const MAX_LOG_ENTRIES = 5;

const NS_PER_MS = 1_000_000;
const DEFAULT_INTERVAL_NS = 30_000 * NS_PER_MS;
const DEFAULT_TIMEOUT_NS = 30_000 * NS_PER_MS;
const DEFAULT_RETRIES = 3;

/** A Healthcheck's timings, with dockerd's defaults where the config says 0. */
export interface HealthTimings {
  /** between the end of one probe and the start of the next, and before the first */
  intervalMs: number;
  timeoutMs: number;
  /** failures while still starting and this young do not count */
  startPeriodMs: number;
  /** consecutive failures that make the container unhealthy */
  retries: number;
  /** "Health check exceeded timeout (30s)" */
  timeoutMessage: string;
}

export function healthTimings(config: HealthConfig): HealthTimings {
  const timeoutNs = config.Timeout || DEFAULT_TIMEOUT_NS;
  return {
    intervalMs: (config.Interval || DEFAULT_INTERVAL_NS) / NS_PER_MS,
    timeoutMs: timeoutNs / NS_PER_MS,
    startPeriodMs: (config.StartPeriod ?? 0) / NS_PER_MS,
    retries: config.Retries !== undefined && config.Retries > 0 ? config.Retries : DEFAULT_RETRIES,
    timeoutMessage: `Health check exceeded timeout (${formatGoDuration(timeoutNs)})`,
  };
}

/**
 * The command a Healthcheck runs in the container: CMD's arguments, or CMD-SHELL's string after the
 * container's Shell (/bin/sh -c by default). None for no Test, NONE, or a type dockerd does not
 * know (it logs a warning and runs nothing).
 */
export function probeCommand(config: HealthConfig, shell?: string[] | null): string[] | undefined {
  const [type, ...rest] = config.Test ?? [];
  if (type === 'CMD') return rest;
  if (type === 'CMD-SHELL') return [...(shell?.length ? shell : ['/bin/sh', '-c']), ...rest];
  return undefined;
}

/** The health a container (re)starts with: starting, no failures, the old results kept (dockerd's initHealthMonitor). */
export function startingHealth(previous?: HealthState): HealthState {
  return { Status: 'starting', FailingStreak: 0, Log: previous ? previous.Log.map((e) => ({ ...e })) : [] };
}

export interface ProbeResult {
  start: Date;
  end: Date;
  exitCode: number;
  output: string;
}

/**
 * The health after one more result (dockerd's handleProbeResult): exit code 0 is healthy and
 * clears the streak; anything else (the -1 of a timeout or an error too) is a failure, which
 * makes the container unhealthy once the streak reaches Retries, unless it came while the
 * container is still starting and within its start period.
 */
export function recordProbeResult(state: HealthState, result: ProbeResult, ctx: { timings: HealthTimings; startedAt: Date }): HealthState {
  const entry: HealthLogEntry = { Start: rfc3339(result.start), End: rfc3339(result.end), ExitCode: result.exitCode, Output: result.output };
  const Log = [...state.Log, entry].slice(-MAX_LOG_ENTRIES);
  if (result.exitCode === 0) return { Status: 'healthy', FailingStreak: 0, Log };
  const inStartPeriod = state.Status === 'starting' && result.start.getTime() - ctx.startedAt.getTime() < ctx.timings.startPeriodMs;
  if (inStartPeriod) return { ...state, Log };
  const FailingStreak = state.FailingStreak + 1;
  return { Status: FailingStreak >= ctx.timings.retries ? 'unhealthy' : state.Status, FailingStreak, Log };
}

/** A probe's stdout and stderr as they come, up to MAX_OUTPUT_BYTES (dockerd's limitedBuffer). */
export class LimitedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private truncated = false;

  write(chunk: Buffer): void {
    const keep = Math.min(MAX_OUTPUT_BYTES - this.size, chunk.length);
    if (keep > 0) {
      this.chunks.push(chunk.subarray(0, keep));
      this.size += keep;
    }
    if (keep < chunk.length) this.truncated = true;
  }

  toString(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.truncated ? `${text}...` : text;
  }
}

function rfc3339(date: Date): string {
  return formatRfc3339Nano(BigInt(date.getTime()) * 1_000_000n);
}
