// Binds, Mounts and Tmpfs as dockerd 20.10's Linux mount parser (volume/mounts) and
// registerMountPoints check them. The reference answers a Binds spec it can't parse with a 500 and
// every other mount error with a 400 (asked); so do these. The Binds options are the same at every
// API version on the reference (1.25 takes "ro,z,rslave" too).
import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import { EngineError, invalidParameter } from '../../errors.js';
import type { HostConfig, Mount } from './types.js';

/** One mount of a container, from a Binds entry or a Mounts item. */
export interface ParsedMount {
  type: 'bind' | 'volume' | 'tmpfs';
  /** The host path (bind), cleaned. */
  source: string;
  /** The volume name (volume); '' for an anonymous volume, which the caller names. */
  name: string;
  /** The volume driver asked for; '' for the default. */
  driver: string;
  destination: string;
  rw: boolean;
  /** The Binds options as given ('' for Mounts). */
  mode: string;
  /** Bind propagation; '' for volumes and tmpfs. */
  propagation: string;
  /** Whether a new volume is filled from the image's content at the destination. */
  copyData: boolean;
  /** The Mounts item this came from; null for a Binds entry. */
  spec: Mount | null;
}

const propagationModes = new Set(['private', 'rprivate', 'shared', 'rshared', 'slave', 'rslave']);
const defaultPropagation = 'rprivate';
const optionGroups: Array<Set<string>> = [
  new Set(['ro', 'rw']),
  new Set(['z', 'Z']),
  propagationModes,
  new Set(['nocopy']),
  new Set(['consistent', 'cached', 'delegated']),
];

/** Parses a HostConfig.Binds entry: `dest`, `src:dest` or `src:dest:options`. */
export function parseBind(raw: string, volumeDriver = ''): ParsedMount {
  const parts = raw.split(':');
  if (parts.length > 3 || parts[0] === '') throw invalidSpec(raw);
  let source = '';
  let target: string;
  let mode = '';
  if (parts.length === 1) target = parts[0];
  else {
    // "/foo:rw" is a destination with a mode, which an anonymous volume can't have
    if (parts.length === 2 && validMode(parts[1])) throw invalidSpec(raw);
    [source, target, mode = ''] = parts;
  }
  if (!validMode(mode)) throw new EngineError('system', `invalid mode: ${mode}`);
  const options = mode === '' ? [] : mode.split(',');
  const type = source.startsWith('/') ? 'bind' : 'volume';
  const propagation = options.find((o) => propagationModes.has(o));
  const m: Mount = { Type: type, Source: source, Target: target, ReadOnly: options.includes('ro') };
  if (type === 'volume' && volumeDriver) m.VolumeOptions = { DriverConfig: { Name: volumeDriver } };
  if (options.includes('nocopy')) m.VolumeOptions = { ...m.VolumeOptions, NoCopy: true };
  if (propagation) m.BindOptions = { Propagation: propagation };
  try {
    validateMountConfig(m, false);
  } catch (err) {
    throw new EngineError('system', `${invalidSpec(raw).message}: ${(err as Error).message}`);
  }
  return { ...toParsed(m), mode, spec: null };
}

/** Parses and checks a HostConfig.Mounts item; a bind's source must exist. */
export function parseMount(m: Mount): ParsedMount {
  validateMountConfig(m, true);
  return toParsed(m);
}

function toParsed(m: Mount): ParsedMount {
  const volume = m.Type === 'volume';
  return {
    type: m.Type as ParsedMount['type'],
    source: m.Type === 'bind' ? cleanPath(m.Source ?? '') : '',
    name: volume ? (m.Source ?? '') : '',
    driver: (volume && m.VolumeOptions?.DriverConfig?.Name) || '',
    destination: cleanPath(m.Target ?? ''),
    rw: !m.ReadOnly,
    mode: '',
    propagation: m.Type === 'bind' ? m.BindOptions?.Propagation || defaultPropagation : '',
    copyData: volume && !m.VolumeOptions?.NoCopy,
    spec: m,
  };
}

function validMode(mode: string): boolean {
  if (mode === '') return true;
  const counts = optionGroups.map(() => 0);
  for (const o of mode.split(',')) {
    const g = optionGroups.findIndex((set) => set.has(o));
    if (g < 0) return false;
    counts[g]++;
  }
  return counts.every((n) => n <= 1);
}

function invalidSpec(raw: string): EngineError {
  return new EngineError('system', `invalid volume specification: '${raw}'`);
}

function validateMountConfig(m: Mount, bindSourceMustExist: boolean): void {
  const fail = (msg: string) => invalidParameter(`invalid mount config for type "${m.Type ?? ''}": ${msg}`);
  if (!m.Target) throw fail('field Target must not be empty');
  if (m.Target === '/') throw fail("invalid specification: destination can't be '/'");
  if (!m.Target.startsWith('/')) throw fail(`invalid mount path: '${m.Target}' mount path must be absolute`);
  switch (m.Type) {
    case 'bind': {
      if (!m.Source) throw fail('field Source must not be empty');
      const propagation = m.BindOptions?.Propagation;
      if (propagation && !propagationModes.has(propagation)) throw fail(`invalid propagation mode: ${propagation}`);
      if (m.VolumeOptions) throw fail('field VolumeOptions must not be specified');
      if (!m.Source.startsWith('/')) throw fail(`invalid mount path: '${m.Source}' mount path must be absolute`);
      if (bindSourceMustExist && !existsSync(m.Source)) throw fail(`bind source path does not exist: ${m.Source}`);
      return;
    }
    case 'volume':
      if (m.BindOptions) throw fail('field BindOptions must not be specified');
      if (!m.Source && m.ReadOnly) throw fail('must not set ReadOnly mode when using anonymous volumes');
      return;
    case 'tmpfs':
      if (m.BindOptions) throw fail('field BindOptions must not be specified');
      if (m.Source) throw fail('field Source must not be specified');
      return;
    default:
      // npipe included: named pipes exist on Windows only
      throw fail('mount type unknown');
  }
}

/** A HostConfig.Tmpfs destination, as dockerd's ValidateTmpfsMountDestination. */
export function validateTmpfsDestination(dest: string): void {
  if (dest === '/') throw invalidParameter("invalid specification: destination can't be '/'");
  if (!dest.startsWith('/')) throw invalidParameter(`invalid mount path: '${dest}' mount path must be absolute`);
}

/** The tmpfs mount options for a Mounts item of type tmpfs, as dockerd's ConvertTmpfsOptions. */
export function tmpfsMountOptions(m: Mount): string {
  const opts: string[] = [];
  if (m.ReadOnly) opts.push('ro');
  const t = m.TmpfsOptions;
  if (t?.Mode) opts.push(`mode=${t.Mode.toString(8)}`);
  if (t?.SizeBytes) {
    const unit = ([['g', 2 ** 30], ['m', 2 ** 20], ['k', 2 ** 10]] as const).find(([, d]) => t.SizeBytes! % d === 0);
    opts.push(unit ? `size=${t.SizeBytes / unit[1]}${unit[0]}` : `size=${t.SizeBytes}`);
  }
  return opts.join(',');
}

/**
 * Every mount of hc (its Binds, then `mountItems`, its Mounts as parseMount checked them), checked
 * against each other as registerMountPoints does: one mount per destination, and rslave or
 * rshared for a bind whose source holds the data root.
 */
export function collectMounts(hc: HostConfig, dataRoot: string, mountItems: readonly ParsedMount[]): ParsedMount[] {
  const byDestination = new Set<string>();
  const mounts: ParsedMount[] = [];
  for (const raw of hc.Binds ?? []) {
    const b = parseBind(raw, hc.VolumeDriver ?? '');
    if (byDestination.has(b.destination) || (hc.Tmpfs && b.destination in hc.Tmpfs)) throw duplicate(b.destination);
    byDestination.add(b.destination);
    mounts.push(withDaemonRootPropagation(b, dataRoot));
  }
  for (const p of mountItems) {
    if (byDestination.has(p.destination)) throw duplicate(p.spec?.Target ?? p.destination);
    byDestination.add(p.destination);
    mounts.push(withDaemonRootPropagation(p, dataRoot));
  }
  return mounts;
}

function duplicate(dest: string): EngineError {
  return invalidParameter(`Duplicate mount point: ${dest}`);
}

/** dockerd's validateBindDaemonRoot: a bind over or under the data root must not hold private mounts of it. */
function withDaemonRootPropagation(p: ParsedMount, dataRoot: string): ParsedMount {
  if (p.type !== 'bind' || dataRoot === '' || !(p.source.startsWith(dataRoot) || dataRoot.startsWith(p.source))) return p;
  const asked = p.spec ? p.spec.BindOptions?.Propagation : p.mode.split(',').find((o) => propagationModes.has(o));
  if (!asked) return { ...p, propagation: 'rslave' };
  if (asked === 'rslave' || asked === 'rshared') return p;
  throw invalidParameter(
    `invalid mount config: must use either propagation mode "rslave" or "rshared" when mount source is within the daemon root, daemon root: "${dataRoot}", bind mount source: "${p.source}", propagation: "${asked}"`,
  );
}

function cleanPath(p: string): string {
  return posix.normalize(p).replace(/(.)\/$/, '$1');
}
