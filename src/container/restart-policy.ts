// Whether, and after how long, a container that ended is started again (moby
// restartmanager/restartmanager.go): the delay starts at 100 ms and doubles with each restart, up to
// a minute, and falls back to 100 ms once a run lasted 10 s or more.
import type { RestartPolicy } from './config/types.js';

const BACKOFF_START_MS = 100;
const BACKOFF_MAX_MS = 60_000;
const RESET_AFTER_RUN_MS = 10_000;

export interface RestartInput {
  policy: RestartPolicy | undefined;
  exitCode: number;
  stoppedByUser: boolean;
  /** restarts so far (RestartCount) */
  restartCount: number;
  /** how long the run that ended lasted */
  ranForMs: number;
  /** the delay before the previous restart; 0 for none */
  previousDelayMs: number;
}

/** The delay before the next start, or undefined when the container stays down. */
export function restartDelayMs(input: RestartInput): number | undefined {
  if (input.stoppedByUser) return undefined;
  const name = input.policy?.Name ?? 'no';
  const wanted =
    name === 'always' ||
    name === 'unless-stopped' ||
    (name === 'on-failure' &&
      input.exitCode !== 0 &&
      ((input.policy?.MaximumRetryCount ?? 0) === 0 || input.restartCount < (input.policy?.MaximumRetryCount ?? 0)));
  if (!wanted) return undefined;
  if (input.ranForMs >= RESET_AFTER_RUN_MS || input.previousDelayMs === 0) return BACKOFF_START_MS;
  return Math.min(input.previousDelayMs * 2, BACKOFF_MAX_MS);
}

/**
 * Whether the daemon starts a stopped container when it comes up (moby daemon.restore with a fresh
 * restart manager): always, even after a user's stop; unless-stopped, unless a user stopped it.
 */
export function startsWithDaemon(policy: RestartPolicy | undefined, stoppedByUser: boolean): boolean {
  const name = policy?.Name ?? 'no';
  return name === 'always' || (name === 'unless-stopped' && !stoppedByUser);
}
