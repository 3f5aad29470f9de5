// Docker's predicates on a container's one status, named for what they mean, and the refusals
// that follow from them in dockerd's words. Everything that asks "is it running?" asks here.
import { conflict, type EngineError } from '../errors.js';
import type { ContainerStatus } from './container-record.js';

/**
 * Running, paused or restarting: Docker's State.Running. Such a container is in use (an image or
 * volume under it can't be removed), listed without `-a`, counted as running by /info (unless
 * paused), and not removed without force.
 */
export function isActive(status: ContainerStatus): boolean {
  return status === 'running' || status === 'paused' || status === 'restarting';
}

/** Running or paused: a process of the current run exists (to signal, sample, join or copy through). */
export function hasProcess(status: ContainerStatus): boolean {
  return status === 'running' || status === 'paused';
}

/** dockerd's 409 for an operation that needs a running container. */
export function notRunningError(id: string): EngineError {
  return conflict(`Container ${id} is not running`);
}

/** dockerd's 409 for an operation on a container between two runs of its restart policy. */
export function restartingError(id: string): EngineError {
  return conflict(`Container ${id} is restarting, wait until the container is running`);
}
