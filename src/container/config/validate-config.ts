// Checks of the portable part (ContainerConfig) before the image is merged in, as dockerd's
// validateContainerConfig: the working directory, the stop signal, the environment, the healthcheck.
import { posix } from 'node:path';
import { invalidParameter } from '../../errors.js';
import { parseSignal } from './stop-signal.js';
import type { ContainerConfig } from './types.js';
import { validateHealthcheck } from './validate-healthcheck.js';

/** Validates in place; the working directory comes back cleaned as dockerd stores it. */
export function validateContainerConfig(c: ContainerConfig, opts: { healthcheckMinimum: boolean }): void {
  if (c.WorkingDir) {
    if (!c.WorkingDir.startsWith('/')) {
      throw invalidParameter(`the working directory '${c.WorkingDir}' is invalid, it needs to be an absolute path`);
    }
    c.WorkingDir = posix.normalize(c.WorkingDir).replace(/(.)\/$/, '$1');
  }
  if (c.StopSignal) parseSignal(c.StopSignal);
  for (const e of c.Env ?? []) {
    if (e === '' || e.startsWith('=')) throw invalidParameter(`invalid environment variable: ${e}`);
  }
  validateHealthcheck(c.Healthcheck, opts.healthcheckMinimum);
}
