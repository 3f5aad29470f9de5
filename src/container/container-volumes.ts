// What containers need of the volume area: the volumes their mounts name, made on first use; the
// image's content copied into a new one at create; the volumes mounted for a run (before runc
// create) and unmounted at its end; and, after a restart, the mounts of runs that lived on.
import type { ContainerVolumeMount } from '../volume/volume-service.js';
import type { ContainerRecord } from './container-record.js';

export interface ContainerVolumes {
  /** The named volume (created when missing), or a new anonymous one when name is undefined; hostPath '' when its driver says none yet. */
  ensure(name: string | undefined, opts: { driver?: string; driverOpts?: Record<string, string> | null; labels?: Record<string, string> | null }): Promise<{ name: string; driver: string; hostPath: string }>;
  /** Fills the volume through `fill` when it is empty. */
  copyUpInto(name: string, fill: (dir: string) => Promise<void>): Promise<void>;
  /** Mounts a run's volumes; destination → the host path to bind. */
  mountFor(containerId: string, mounts: readonly ContainerVolumeMount[]): Promise<Map<string, string>>;
  unmountFor(containerId: string): Promise<void>;
  restoreMounts(runs: ReadonlyArray<{ containerId: string; mounts: readonly ContainerVolumeMount[] }>): Promise<void>;
  /** Removes a volume unless a container references it (409). */
  remove(name: string): Promise<void>;
}

/** The record's volume mounts, as the volume area mounts them. */
export function volumeMountsOf(record: ContainerRecord): ContainerVolumeMount[] {
  return record.mountPoints.flatMap((m) =>
    m.Type === 'volume' && m.Name !== undefined ? [{ name: m.Name, destination: m.Destination, source: m.Source, rw: m.RW, propagation: m.Propagation }] : [],
  );
}
