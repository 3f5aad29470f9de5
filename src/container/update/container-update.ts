// POST /containers/{id}/update as dockerd 20.10: the request is checked as create checks resources
// and restart policies (400, with warnings for what the kernel can't enforce), then, in the
// container's queue, merged into its HostConfig (409 for a conflict with what is set), persisted,
// and applied to a running (or paused) container with runc update. Should runc refuse, the old
// HostConfig is put back.
import { EngineError } from '../../errors.js';
import { RuntimeError } from '../../runtime/runtime-errors.js';
import type { CreateLimits } from '../config/create-limits.js';
import type { HostConfig } from '../config/types.js';
import { validateRestartPolicy } from '../config/validate-host-options.js';
import { checkDecoderResources, verifyResources } from '../config/validate-resources.js';
import type { ContainerRecord } from '../container-record.js';
import { hasProcess } from '../container-state.js';
import { mergeUpdate, runcUpdateResources } from './merge-update.js';
import type { ContainerUpdate } from './update-body.js';

/** Checks the request and adjusts it in place (dropping what can't be enforced); dockerd's warnings. */
export function verifyUpdate(u: ContainerUpdate, limits: CreateLimits): string[] {
  validateRestartPolicy({ RestartPolicy: u.restartPolicy });
  try {
    checkDecoderResources(u.resources, limits);
  } catch (err) {
    // create's decoder answers these with a 500; an update's verification with a 400
    throw new EngineError('invalidParameter', (err as Error).message);
  }
  return verifyResources(u.resources, limits, { update: true });
}

export interface UpdateDeps {
  save: (record: ContainerRecord) => Promise<void>;
  /** runc update on the running container */
  updateRuntime: (id: string, resources: Record<string, unknown>) => Promise<void>;
}

/** Runs in the container's queue. */
export async function applyUpdate(record: ContainerRecord, u: ContainerUpdate, deps: UpdateDeps): Promise<void> {
  const s = record.state.status;
  if (s === 'removing' || s === 'dead') throw cannotUpdate(record.id, 'system', 'container is marked for removal and cannot be "update"');
  const before = record.hostConfig;
  let next: HostConfig;
  try {
    next = mergeUpdate(before, u);
  } catch (err) {
    throw cannotUpdate(record.id, (err as EngineError).kind, (err as Error).message);
  }
  record.hostConfig = next;
  try {
    await deps.save(record);
  } catch (err) {
    record.hostConfig = before;
    throw err;
  }
  // a stopped or restarting container gets the new limits at its next start (the spec reads HostConfig)
  if (!hasProcess(record.state.status)) return;
  try {
    await deps.updateRuntime(record.id, runcUpdateResources(u.resources));
  } catch (err) {
    record.hostConfig = before;
    await deps.save(record);
    const message = err instanceof RuntimeError ? `${err.runtimeMessage}: unknown` : (err as Error).message;
    throw cannotUpdate(record.id, 'system', message);
  }
}

function cannotUpdate(id: string, kind: EngineError['kind'], message: string): EngineError {
  return new EngineError(kind, `Cannot update container ${id}: ${message}`);
}
