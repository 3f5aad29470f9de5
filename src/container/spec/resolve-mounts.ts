// A container's mount points, as dockerd's registerMountPoints and createContainerOSSpecificSettings
// gather them at create (v20.10 daemon/volumes.go, daemon/create_unix.go, volume/mounts): VolumesFrom
// (`id[:ro|rw]`), then Binds (`src:dst[:mode]`, a source that is not absolute naming a volume), then
// Mounts, then an anonymous volume for each image and Config volume that nothing else covers.
// HostConfig.Tmpfs is not a mount point (inspect does not list it) but may not share a destination.
import path from 'node:path';
import { notFound } from '../../errors.js';
import type { ContainerConfig, HostConfig } from '../config/types.js';
import { tmpfsMountOptions, type ParsedMount } from '../config/validate-mounts.js';
import type { ContainerVolumes } from '../container-volumes.js';

/** One of inspect's Mounts, plus what the spec and the copy-up need (the camelCase fields, not shown). */
export interface MountPoint {
  Type: 'bind' | 'volume' | 'tmpfs';
  Name?: string;
  /** the host path; '' for tmpfs */
  Source: string;
  Destination: string;
  Driver?: string;
  Mode: string;
  RW: boolean;
  Propagation: string;
  /** tmpfs: its mount data (size=..,mode=..) */
  tmpfsOptions?: string;
  /** volume: copy the image's content at the destination into it while it is empty */
  copyData?: boolean;
  /** bind: `bind` instead of `rbind` (BindOptions.NonRecursive) */
  nonRecursive?: boolean;
  /** bind from Binds: a missing source directory is created at start, as dockerd does */
  createSource?: boolean;
  /** volume: made for this container without a name; removed with it (rm -v, AutoRemove) unless another uses it */
  anonymous?: boolean;
}

export interface ResolveMountsInput {
  config: ContainerConfig;
  /** for VolumesFrom and Tmpfs */
  hostConfig: HostConfig;
  /** Binds then Mounts, as the create normalizer parsed and checked them (collectMounts) */
  mounts: readonly ParsedMount[];
  volumes: Pick<ContainerVolumes, 'ensure'>;
  /** the mount points of another container, for VolumesFrom; undefined when there is no such container */
  containers: (idOrName: string) => { mountPoints: MountPoint[] } | undefined;
}

/** All the container's mount points, volumes created (or found) on the way. */
export async function resolveMountPoints(input: ResolveMountsInput): Promise<MountPoint[]> {
  const { hostConfig: hc, volumes } = input;
  const points = new Map<string, MountPoint>();
  const tmpfsDestinations = new Set(Object.keys(hc.Tmpfs ?? {}).map((d) => cleanPath(d)));

  for (const spec of hc.VolumesFrom ?? []) {
    const at = spec.indexOf(':');
    const id = at < 0 ? spec : spec.slice(0, at);
    const mode = at < 0 ? 'rw' : spec.slice(at + 1);
    const other = input.containers(id);
    if (!other) throw notFound(`No such container: ${id}`);
    const rw = !mode.split(',').includes('ro');
    for (const m of other.mountPoints) {
      points.set(m.Destination, { ...m, Mode: '', RW: m.RW && rw, copyData: false, createSource: false });
    }
  }

  for (const parsed of input.mounts) {
    const point = await toMountPoint(parsed, volumes);
    points.set(point.Destination, point);
  }

  // image and Config volumes: a new anonymous volume each, unless something is mounted there already
  for (const spec of Object.keys(input.config.Volumes ?? {})) {
    const destination = cleanPath(spec);
    if (points.has(destination) || tmpfsDestinations.has(destination)) continue;
    const v = await volumes.ensure(undefined, { driver: hc.VolumeDriver ?? '' });
    points.set(destination, { Type: 'volume', Name: v.name, Source: v.hostPath, Destination: destination, Driver: v.driver, Mode: '', RW: true, Propagation: '', copyData: true, anonymous: true });
  }
  return [...points.values()];
}

/** A parsed mount as a mount point, its volume made (or found) when it names one. */
async function toMountPoint(p: ParsedMount, volumes: Pick<ContainerVolumes, 'ensure'>): Promise<MountPoint> {
  const common = { Destination: p.destination, RW: p.rw };
  switch (p.type) {
    case 'bind': {
      const point: MountPoint = { Type: 'bind', Source: p.source, ...common, Mode: p.mode, Propagation: p.propagation };
      // a Binds source that is missing is made at start, as dockerd does; a Mounts source must exist
      if (p.spec === null) point.createSource = true;
      if (p.spec?.BindOptions?.NonRecursive) point.nonRecursive = true;
      return point;
    }
    case 'volume': {
      const options = p.spec?.VolumeOptions;
      const v = await volumes.ensure(p.name === '' ? undefined : p.name, { driver: p.driver, driverOpts: options?.DriverConfig?.Options ?? null, labels: options?.Labels ?? null });
      // inspect shows `z` for a local volume given without a mode
      const point: MountPoint = { Type: 'volume', Name: v.name, Source: v.hostPath, ...common, Driver: v.driver, Mode: p.mode === '' ? 'z' : p.mode, Propagation: '', copyData: p.copyData };
      if (p.name === '') point.anonymous = true;
      return point;
    }
    case 'tmpfs':
      return { Type: 'tmpfs', Source: '', ...common, Mode: '', Propagation: '', tmpfsOptions: tmpfsMountOptions(p.spec ?? {}) };
  }
}

/** Go's path.Clean: normalized, without a trailing slash. */
export function cleanPath(p: string): string {
  const n = path.posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}
