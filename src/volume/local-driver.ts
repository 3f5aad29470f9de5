// dockerd's local driver: a volume is <root>/<name>/_data. One made with options (local-options.ts)
// has the device mounted there when its first user mounts it and unmounted when its last one
// unmounts; the users are counted by mount ID, and after a restart the service tells the driver
// who still uses what (restoreMounts). A volume's directories are never followed through a symlink:
// a link planted there could lead a mount or a removal out of the root.
import { lstatSync, mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { EngineError, invalidParameter } from '../errors.js';
import { CommandError, runCommand } from '../runtime/child-process.js';
import { isMountPoint } from '../runtime/mount-table.js';
import { localMountOptions, mountErrorDetail, type LocalMountOptions } from './local-options.js';
import type { VolumeDescription, VolumeDriver } from './volume-driver.js';
import { isVolumeName } from './volume-name.js';

export const LOCAL_DRIVER = 'local';
/** a mount of a network filesystem that does not answer still ends */
const MOUNT_TIMEOUT_MS = 120_000;

export class LocalDriver implements VolumeDriver {
  readonly name = LOCAL_DRIVER;
  readonly root: string;
  private readonly mountOptions = new Map<string, LocalMountOptions>();
  /** the mount IDs using each mounted volume */
  private readonly users = new Map<string, Set<string>>();

  constructor(
    root: string,
    private readonly log: Logger,
  ) {
    this.root = root;
    mkdirSync(root, { recursive: true, mode: 0o701 });
  }

  /** The volumes present as directories with a `_data` (the records' local volumes, and bare ones a record does not know), under names a volume may have. */
  directories(): string[] {
    return readdirSync(this.root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && isVolumeName(e.name) && lstatOrUndefined(path.join(this.root, e.name, '_data'))?.isDirectory() === true)
      .map((e) => e.name);
  }

  /** Takes a recorded volume's options (at load), so that its first user mounts them. */
  adopt(name: string, options: Record<string, string> | null): void {
    const mount = localMountOptions(options);
    if (mount) this.mountOptions.set(name, mount);
  }

  scope(): Promise<'local'> {
    return Promise.resolve('local');
  }

  async create(name: string, options: Record<string, string> | null): Promise<void> {
    const mount = localMountOptions(options);
    const dir = path.join(this.root, name);
    if (lstatOrUndefined(dir)?.isSymbolicLink()) throw outsideRoot(dir);
    mkdirSync(dir, { mode: 0o701, recursive: true });
    mkdirSync(path.join(dir, '_data'), { recursive: true, mode: 0o755 });
    this.dataDir(name);
    if (mount) this.mountOptions.set(name, mount);
  }

  async remove(name: string): Promise<void> {
    const dir = path.join(this.root, name);
    if (lstatOrUndefined(dir) === undefined) return;
    // only what is really inside the root goes, as dockerd's check of the real path
    if (realpathSync(dir) !== path.join(realpathSync(this.root), name)) throw outsideRoot(dir);
    await unmountData(path.join(dir, '_data'));
    rmSync(dir, { recursive: true, force: true });
    this.mountOptions.delete(name);
    this.users.delete(name);
  }

  async mount(name: string, mountId: string): Promise<string> {
    const data = this.dataDir(name);
    const options = this.mountOptions.get(name);
    if (!options) return data;
    const users = this.users.get(name) ?? new Set<string>();
    if (users.size === 0 && !(await isMountPoint(data))) await mountDevice(options, data);
    users.add(mountId);
    this.users.set(name, users);
    return data;
  }

  async unmount(name: string, mountId: string): Promise<void> {
    const users = this.users.get(name);
    if (!users?.delete(mountId) || users.size > 0) return;
    this.users.delete(name);
    await unmountData(this.mountpoint(name));
  }

  /** After a restart: the mount IDs still in use per volume; a device mount nobody uses any more is undone. */
  async restoreMounts(inUse: ReadonlyMap<string, readonly string[]>): Promise<void> {
    for (const name of this.mountOptions.keys()) {
      const ids = inUse.get(name) ?? [];
      if (ids.length > 0) {
        this.users.set(name, new Set(ids));
        continue;
      }
      await unmountData(this.mountpoint(name)).catch((err: unknown) => this.log.warn({ err, volume: name }, 'unmounting a volume nobody uses'));
    }
  }

  describe(name: string): Promise<VolumeDescription> {
    return Promise.resolve({ mountpoint: this.mountpoint(name) });
  }

  mountpoint(name: string): string {
    // a name is one path component (volume-name.ts): no join needed, and a list of hundreds asks
    return `${this.root}/${name}/_data`;
  }

  /** When a directory found without a record was made, as near as the filesystem says. */
  changedAt(name: string): Date {
    return lstatOrUndefined(path.join(this.root, name))?.ctime ?? new Date();
  }

  /** `_data`, checked: a real directory under a real directory of the root. */
  dataDir(name: string): string {
    const dir = path.join(this.root, name);
    const data = path.join(dir, '_data');
    for (const p of [dir, data]) {
      const st = lstatOrUndefined(p);
      if (st === undefined) throw new EngineError('notFound', `volume data directory ${p} is missing`);
      if (!st.isDirectory()) throw outsideRoot(p);
    }
    return data;
  }
}

/** The device mounted by mount(8); its failure in dockerd's shape, with mount(8)'s reason. */
async function mountDevice(options: LocalMountOptions, target: string): Promise<void> {
  const args = options.type === '' ? [] : ['-t', options.type];
  if (options.o !== '') args.push('-o', options.o);
  try {
    await runCommand('mount', [...args, '--', options.device, target], { timeoutMs: MOUNT_TIMEOUT_MS });
  } catch (err) {
    const said = err instanceof CommandError ? err.stderr.trim() || err.message : String(err);
    // mount(8)'s first line, without its "mount: <target>: " and its closing period
    const reason = said.split('\n')[0].replace(/^mount: /, '').replace(`${target}: `, '').replace(/\.$/, '');
    throw new EngineError('system', `failed to mount local volume: mount ${options.device}:${target}${mountErrorDetail(options.o)}: ${reason}`);
  }
}

/** Detaches what is mounted on a volume's _data (lazily: a process may still hold it); nothing when nothing is. */
async function unmountData(data: string): Promise<void> {
  if ((await isMountPoint(data))) await runCommand('umount', ['-l', data]);
}

function outsideRoot(p: string): EngineError {
  return invalidParameter(`volume path ${p} is not a directory inside the volumes root`);
}

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
