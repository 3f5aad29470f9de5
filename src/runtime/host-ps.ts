// The host's ps(1), run for `docker top` with the caller's arguments (no shell).
import { execFile } from 'node:child_process';

/** How long ps may take before it is killed. */
const PS_TIMEOUT_MS = 10_000;

export interface PsResult {
  /** ps's exit code; null when it was ended by a signal or could not be run */
  code: number | null;
  stdout: string;
  stderr: string;
  /** why it could not be run or was ended (spawn error, time limit) */
  error?: string;
}

export function runHostPs(args: string[]): Promise<PsResult> {
  return new Promise((resolve) => {
    execFile('ps', args, { timeout: PS_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ code: 0, stdout, stderr });
      const code = typeof err.code === 'number' ? err.code : null;
      resolve({ code, stdout, stderr, ...(code === null ? { error: err.message } : {}) });
    });
  });
}
