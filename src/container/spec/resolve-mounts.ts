// A container's mount points, as dockerd's registerMountPoints and createContainerOSSpecificSettings
// gather them at create (v20.10 daemon/volumes.go, daemon/create_unix.go, volume/mounts): VolumesFrom
// (`id[:ro|rw]`), then Binds (`src:dst[:mode]`, a source that is not absolute naming a volume), then
// Mounts, then an anonymous volume for each image and Config volume that nothing else covers.
// HostConfig.Tmpfs is not a mount point (inspect does not list it) but may not share a destination.
import path from 'node:path';
import { invalidParameter, notFound } from '../../errors.js';
import type { ContainerConfig, HostConfig, Mount } from '../config/types.js';
import type { VolumeProvider } from './local-volumes.js';

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
}

export interface ResolveMountsInput {
  config: ContainerConfig;
  hostConfig: HostConfig;
  volumes: VolumeProvider;
  /** the mount points of another container, for VolumesFrom; undefined when there is no such container */
  containers: (idOrName: string) => { mountPoints: MountPoint[] } | undefined;
  /** the daemon's data root: a bind of it (or of a folder holding it) gets rslave propagation, as in dockerd */
  daemonRoot?: string;
}

const RW_MODES = new Set(['rw', 'ro']);
const LABEL_MODES = new Set(['z', 'Z']);
const PROPAGATION_MODES = new Set(['private', 'rprivate', 'slave', 'rslave', 'shared', 'rshared']);
const COPY_MODES = new Set(['nocopy']);
const CONSISTENCY_MODES = new Set(['consistent', 'cached', 'delegated']);

/** A Binds mode is a comma list with at most one of each kind (moby's linuxValidMountMode). */
export function validMountMode(mode: string): boolean {
  if (mode === '') return true;
  const counts = [0, 0, 0, 0, 0];
  for (const o of mode.split(',')) {
    const kind = [RW_MODES, LABEL_MODES, PROPAGATION_MODES, COPY_MODES, CONSISTENCY_MODES].findIndex((set) => set.has(o));
    if (kind < 0) return false;
    counts[kind]++;
  }
  return counts.every((n) => n <= 1);
}

/** All the container's mount points, volumes created (or found) on the way. */
export async function resolveMountPoints(input: ResolveMountsInput): Promise<MountPoint[]> {
  const { hostConfig: hc, volumes } = input;
  const points = new Map<string, MountPoint>();
  const userSet = new Set<string>();
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

  const claim = (destination: string): void => {
    if (userSet.has(destination) || tmpfsDestinations.has(destination)) throw invalidParameter(`Duplicate mount point: ${destination}`);
    userSet.add(destination);
  };

  for (const raw of hc.Binds ?? []) {
    const bind = parseBind(raw);
    claim(bind.Destination);
    if (bind.Type === 'volume') {
      const v = await volumes.ensure(bind.Name, {});
      bind.Name = v.name;
      bind.Source = v.hostPath;
      bind.Driver = v.driver;
      if (bind.Mode === '') bind.Mode = 'z';
    } else {
      bind.Propagation = slaveUnderDaemonRoot(bind.Source, bind.Propagation, input.daemonRoot, !hasPropagation(bind.Mode));
    }
    points.set(bind.Destination, bind);
  }

  for (const m of hc.Mounts ?? []) {
    const point = await fromMount(m, volumes, input.daemonRoot);
    claim(point.Destination);
    points.set(point.Destination, point);
  }

  // image and Config volumes: a new anonymous volume each, unless something is mounted there already
  for (const spec of Object.keys(input.config.Volumes ?? {})) {
    const destination = cleanPath(spec);
    if (points.has(destination) || tmpfsDestinations.has(destination)) continue;
    const v = await volumes.ensure(undefined, {});
    points.set(destination, { Type: 'volume', Name: v.name, Source: v.hostPath, Destination: destination, Driver: v.driver, Mode: '', RW: true, Propagation: '', copyData: true });
  }
  return [...points.values()];
}

/** One Binds entry (`src:dst[:mode]`) before its volume is made: moby's ParseMountRaw. */
export function parseBind(raw: string): MountPoint {
  const invalid = () => invalidParameter(`invalid volume specification: '${raw}'`);
  const parts = raw.split(':');
  if (parts[0] === '' || parts.length < 2 || parts.length > 3) throw invalid();
  if (parts.length === 2 && validMountMode(parts[1])) throw invalid();
  const [source, target, mode = ''] = parts;
  if (!validMountMode(mode)) throw invalidParameter(`invalid mode: ${mode}`);
  if (!target.startsWith('/')) throw invalidParameter(`invalid volume specification: '${raw}': invalid mount config for type "${source.startsWith('/') ? 'bind' : 'volume'}": invalid mount path: '${target}' mount path must be absolute`);
  const destination = cleanPath(target);
  if (destination === '/') throw invalidParameter(`invalid volume specification: '${raw}': invalid mount config for type "bind": invalid specification: destination can't be '/'`);
  const opts = mode.split(',');
  const rw = !opts.includes('ro');
  if (source.startsWith('/')) {
    const propagation = opts.find((o) => PROPAGATION_MODES.has(o)) ?? 'rprivate';
    return { Type: 'bind', Source: cleanPath(source), Destination: destination, Mode: mode, RW: rw, Propagation: propagation, createSource: true };
  }
  return { Type: 'volume', Name: source, Source: '', Destination: destination, Mode: mode, RW: rw, Propagation: '', copyData: !opts.includes('nocopy') };
}

function hasPropagation(mode: string): boolean {
  return mode.split(',').some((o) => PROPAGATION_MODES.has(o));
}

/** dockerd's validateBindDaemonRoot: a bind over the daemon's root must not hold private copies of its mounts. */
function slaveUnderDaemonRoot(source: string, propagation: string, daemonRoot: string | undefined, unset: boolean): string {
  if (!daemonRoot || !(source.startsWith(daemonRoot) || daemonRoot.startsWith(source))) return propagation;
  if (unset) return 'rslave';
  if (propagation === 'rslave' || propagation === 'rshared') return propagation;
  throw invalidParameter(
    `invalid mount config: must use either propagation mode "rslave" or "rshared" when mount source is within the daemon root, daemon root: "${daemonRoot}", bind mount source: "${source}", propagation: "${propagation}"`,
  );
}

async function fromMount(m: Mount, volumes: VolumeProvider, daemonRoot: string | undefined): Promise<MountPoint> {
  const destination = cleanPath(m.Target ?? '');
  const rw = !m.ReadOnly;
  switch (m.Type) {
    case 'bind': {
      const explicit = m.BindOptions?.Propagation ?? '';
      const point: MountPoint = {
        Type: 'bind',
        Source: cleanPath(m.Source ?? ''),
        Destination: destination,
        Mode: '',
        RW: rw,
        Propagation: explicit || 'rprivate',
      };
      point.Propagation = slaveUnderDaemonRoot(point.Source, point.Propagation, daemonRoot, explicit === '');
      if (m.BindOptions?.NonRecursive) point.nonRecursive = true;
      return point;
    }
    case 'volume': {
      const noCopy = m.VolumeOptions?.NoCopy ?? false;
      const v = await volumes.ensure(m.Source || undefined, { labels: m.VolumeOptions?.Labels, noCopy });
      return { Type: 'volume', Name: v.name, Source: v.hostPath, Destination: destination, Driver: v.driver, Mode: 'z', RW: rw, Propagation: '', copyData: !noCopy };
    }
    case 'tmpfs':
      return { Type: 'tmpfs', Source: '', Destination: destination, Mode: '', RW: rw, Propagation: '', tmpfsOptions: tmpfsData(m) };
    default:
      throw invalidParameter(`invalid mount config for type "${String(m.Type)}": mount type unknown`);
  }
}

/** Mounts' TmpfsOptions as mount data, as moby's ConvertTmpfsOptions writes them (mode in octal, size with the largest exact unit). */
export function tmpfsData(m: Mount): string {
  const out: string[] = [];
  if (m.ReadOnly) out.push('ro');
  const mode = m.TmpfsOptions?.Mode ?? 0;
  if (mode) out.push(`mode=${mode.toString(8)}`);
  const size = m.TmpfsOptions?.SizeBytes ?? 0;
  if (size) {
    const unit = ([['g', 2 ** 30], ['m', 2 ** 20], ['k', 2 ** 10]] as const).find(([, d]) => size % d === 0);
    out.push(unit ? `size=${size / unit[1]}${unit[0]}` : `size=${size}`);
  }
  return out.join(',');
}

/** Go's path.Clean: normalized, without a trailing slash. */
export function cleanPath(p: string): string {
  const n = path.posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}
