// Containers' root filesystems: the image's layers as the read-only lower stack of an overlay
// mount, under the container's init layer (init-layer.ts), and a writable upper layer of the
// container's own, as dockerd's overlay2 driver makes them.
//
//   <root>/<id>/rootfs.json   the record: the top layer and the lower stack (written atomically)
//   <root>/<id>/init          the init layer, the topmost lower directory (dockerd's <id>-init)
//   <root>/<id>/upper         the container's changes (overlayfs upperdir)
//   <root>/<id>/work          overlayfs' workdir
//   <root>/<id>/merged        where the root filesystem is mounted
//   <root>/l/<short>          symbolic links to layer directories, for short mount options
//   <root>/empty              the lower layer of an image without layers in data roots from
//                             before init layers (its name stays reserved)
//
// Root filesystems made before init layers keep the lower stack their record names and mount as
// they did: giving them an init layer under changes already made would change what their
// containers see, and `docker diff` then lists the mount targets runc made in their own layer.
//
// A root filesystem is made in staging and appears with one rename; removing it takes it out with
// one rename into staging. mount(2) takes at most a page of options: when the layers' own paths
// do not fit, the mount names them through the short links, relative to <root>, from a mount
// process started there, as dockerd does (overlay2 Get with mountFrom), and one more than fits
// either way is refused when the root filesystem is created.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { conflict, EngineError, invalidParameter, notFound } from '../errors.js';
import { fsyncPath, writeFileAtomic } from '../store/atomic-file.js';
import type { Staging } from '../store/staging.js';
import type { Digest } from '../image/digest.js';
import { changesArchive } from './changes-archive.js';
import { makeInitLayer } from './init-layer.js';
import { isPlainOptionPath, mountCount, mountOptionsLimit, mountOverlay, overlayOptions, unmountPath } from './overlay-mount.js';
import { rootfsChanges, type Change } from './rootfs-changes.js';

export type { Change, ChangeKind } from './rootfs-changes.js';

export interface RootfsRecord {
  id: string;
  /** the chain ID of the image's top layer; null for an image without layers */
  topLayer: Digest | null;
  /** the read-only layers' directories, topmost first (overlayfs' lowerdir order): the init layer, then the image's */
  lowerDirs: string[];
}

export interface RootfsStoreOptions {
  /** e.g. <data-root>/rootfs; on the same file system as `staging` */
  root: string;
  staging: Staging;
}

/**
 * 'detached': the mount was busy and is lazily unmounted (umount -l); the kernel drops it once unused.
 * 'deferred': leases hold it; the last release unmounts it.
 */
export type UnmountResult = 'not-mounted' | 'unmounted' | 'detached' | 'deferred';

/** A use of a mounted root filesystem besides its runs (a copy in or out of a stopped container). */
export interface RootfsLease {
  mergedDir: string;
  release(): Promise<void>;
}

const RECORD_FILE = 'rootfs.json';
/** the init layer, overlayfs' upperdir and workdir, the mount point, and the lower layers' read-only view's, in each root filesystem's directory */
const [INIT_DIR, UPPER_DIR, WORK_DIR, MERGED_DIR, LOWER_VIEW_DIR] = ['init', 'upper', 'work', 'merged', 'lower'];
const LINKS_DIR = 'l';
const EMPTY_DIR = 'empty';
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** dockerd's short link names: 26 characters of base32 */
const LINK_NAME_LENGTH = 26;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export class RootfsStore {
  private readonly root: string;
  private readonly staging: Staging;
  private readonly records = new Map<string, RootfsRecord>();
  /** each root filesystem's mount, unmount and remove, one at a time */
  private readonly queues = new Map<string, Promise<unknown>>();
  /**
   * Leases per root filesystem, and whether the last release unmounts it (the lease mounted it, or
   * an unmount came while leases held it); a run's mount takes the mount over from the leases.
   */
  private readonly leases = new Map<string, { count: number; unmountOnRelease: boolean }>();

  constructor(opts: RootfsStoreOptions) {
    mkdirSync(opts.root, { recursive: true, mode: 0o700 });
    // mountinfo shows the real path
    this.root = realpathSync(opts.root);
    this.staging = opts.staging;
    mkdirSync(path.join(this.root, LINKS_DIR), { recursive: true, mode: 0o700 });
    for (const name of readdirSync(this.root)) {
      const file = path.join(this.root, name, RECORD_FILE);
      if (ID_PATTERN.test(name) && existsSync(file)) {
        const record = JSON.parse(readFileSync(file, 'utf8')) as RootfsRecord;
        this.records.set(record.id, record);
      }
    }
    this.collectLinks();
  }

  /**
   * Makes the (unmounted) root filesystem `id` over the layer `topLayer`, whose directory and its
   * parents' are `layerDirs`, topmost first (the image store's stack); none for an image without
   * layers. Its init layer is made with it.
   */
  async create(id: string, topLayer: Digest | null, layerDirs: readonly string[]): Promise<RootfsRecord> {
    if (!ID_PATTERN.test(id) || id === LINKS_DIR || id === EMPTY_DIR) throw invalidParameter(`invalid root filesystem ID ${JSON.stringify(id)}`);
    if (this.records.has(id) || existsSync(this.dir(id))) throw conflict(`a root filesystem ${id} already exists`);
    const imageDirs = topLayer === null ? [] : layerDirs.map((dir) => path.resolve(dir));
    if (topLayer !== null && imageDirs.length === 0) throw notFound(`no such layer: ${topLayer}`);
    for (const dir of imageDirs) if (!existsSync(dir)) throw new EngineError('system', `layer directory ${dir} of ${topLayer} is missing`);
    const record: RootfsRecord = { id, topLayer, lowerDirs: [path.join(this.dir(id), INIT_DIR), ...imageDirs] };
    // refuse now what could never be mounted
    this.mountArguments(record);

    const stage = this.staging.newDir('rootfs');
    try {
      mkdirSync(path.join(stage, INIT_DIR), { mode: 0o755 });
      await makeInitLayer(path.join(stage, INIT_DIR), imageDirs);
      mkdirSync(path.join(stage, UPPER_DIR), { mode: 0o755 });
      mkdirSync(path.join(stage, WORK_DIR), { mode: 0o700 });
      mkdirSync(path.join(stage, MERGED_DIR), { mode: 0o700 });
      await writeFileAtomic(path.join(stage, RECORD_FILE), JSON.stringify(record));
      renameSync(stage, this.dir(id));
    } catch (err) {
      rmSync(stage, { recursive: true, force: true });
      throw err;
    }
    await fsyncPath(this.root);
    this.records.set(id, record);
    return record;
  }

  get(id: string): RootfsRecord | undefined {
    return this.records.get(id);
  }

  list(): RootfsRecord[] {
    return [...this.records.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Mounts the root filesystem unless it already is; the merged directory, where it is. */
  mount(id: string): Promise<string> {
    return this.exclusive(id, async () => {
      const record = this.record(id);
      const lease = this.leases.get(id);
      if (lease !== undefined) lease.unmountOnRelease = false;
      return this.mountNow(record);
    });
  }

  /** Mounts the root filesystem for a use other than a run; it stays mounted until every lease is released. */
  lease(id: string): Promise<RootfsLease> {
    return this.exclusive(id, async () => {
      const record = this.record(id);
      const wasMounted = (await mountCount(this.mergedDir(id))) > 0;
      const mergedDir = await this.mountNow(record);
      const lease = this.leases.get(id) ?? { count: 0, unmountOnRelease: !wasMounted };
      lease.count++;
      this.leases.set(id, lease);
      let released = false;
      const release = (): Promise<void> => {
        if (released) return Promise.resolve();
        released = true;
        return this.exclusive(id, async () => {
          if (--lease.count > 0 || this.leases.get(id) !== lease) return;
          this.leases.delete(id);
          if (lease.unmountOnRelease && this.records.has(id)) await this.unmountNow(id);
        });
      };
      return { mergedDir, release };
    });
  }

  /**
   * The layers as create made them (the init layer over the image's) mounted read-only, to read
   * from: an overlay without an upper directory, whose unmount syncs nothing (a read-write
   * overlay's unmount syncs its upper filesystem, every dirty page on it). A root filesystem of the
   * init layer alone is that directory. Its release unmounts it.
   */
  lowerView(id: string): Promise<RootfsLease> {
    return this.exclusive(id, async () => {
      const record = this.record(id);
      if (record.lowerDirs.length === 1) return { mergedDir: record.lowerDirs[0], release: () => Promise.resolve() };
      const target = path.join(this.dir(id), LOWER_VIEW_DIR);
      mkdirSync(target, { recursive: true, mode: 0o700 });
      if ((await mountCount(target)) === 0) {
        const { options, cwd, links } = this.mountArguments(record, 'lower');
        for (const [link, dir] of links) this.ensureLink(link, dir);
        await mountOverlay(`ro,${options}`, target, cwd);
      }
      return { mergedDir: target, release: () => this.exclusive(id, () => this.unmountLowerView(id)) };
    });
  }

  async isMounted(id: string): Promise<boolean> {
    this.record(id);
    return (await mountCount(this.mergedDir(id))) > 0;
  }

  /** Unmounts the root filesystem if it is mounted (a busy mount is detached: see UnmountResult). */
  unmount(id: string): Promise<UnmountResult> {
    return this.exclusive(id, async () => {
      this.record(id);
      const lease = this.leases.get(id);
      if (lease !== undefined) {
        lease.unmountOnRelease = true;
        return 'deferred';
      }
      return this.unmountNow(id);
    });
  }

  /** Unmounts the root filesystem if need be, and deletes it and the container's changes. */
  remove(id: string): Promise<UnmountResult> {
    return this.exclusive(id, async () => {
      this.record(id);
      // a lease still held ends with the root filesystem: its release finds nothing to unmount
      this.leases.delete(id);
      await this.unmountLowerView(id);
      const unmounted = await this.unmountNow(id);
      this.staging.discard(this.dir(id));
      this.records.delete(id);
      this.collectLinks();
      return unmounted;
    });
  }

  /** What the container changed, as `docker diff` lists it (0 modified, 1 added, 2 deleted), sorted by path. */
  async changes(id: string): Promise<Change[]> {
    const record = this.record(id);
    return rootfsChanges(this.upperDir(id), record.lowerDirs);
  }

  /** The container's changes as a layer tar, whiteouts as `.wh.` entries: what a commit stores. */
  exportChanges(id: string): Readable {
    this.record(id);
    return changesArchive(this.upperDir(id));
  }

  upperDir(id: string): string {
    return path.join(this.dir(id), UPPER_DIR);
  }

  mergedDir(id: string): string {
    return path.join(this.dir(id), MERGED_DIR);
  }

  /** overlayfs' workdir: inspect's GraphDriver shows it */
  workDir(id: string): string {
    return path.join(this.dir(id), WORK_DIR);
  }

  private dir(id: string): string {
    return path.join(this.root, id);
  }

  private record(id: string): RootfsRecord {
    const record = this.records.get(id);
    if (record === undefined) throw notFound(`no such root filesystem: ${id}`);
    return record;
  }

  private async mountNow(record: RootfsRecord): Promise<string> {
    const merged = this.mergedDir(record.id);
    if ((await mountCount(merged)) > 0) return merged;
    const { options, target, cwd, links } = this.mountArguments(record);
    for (const [link, dir] of links) this.ensureLink(link, dir);
    await mountOverlay(options, target, cwd);
    return merged;
  }

  private async unmountNow(id: string): Promise<UnmountResult> {
    const merged = this.mergedDir(id);
    if ((await mountCount(merged)) === 0) return 'not-mounted';
    let result: UnmountResult = 'unmounted';
    // more than one mount may sit there (a mount made by hand over berth's): all go
    for (let left = (await mountCount(merged)); left > 0; left = (await mountCount(merged))) {
      if ((await unmountPath(merged)) === 'detached') result = 'detached';
      if ((await mountCount(merged)) >= left) throw new EngineError('system', `cannot unmount ${merged}: it is still mounted`);
    }
    return result;
  }

  private async unmountLowerView(id: string): Promise<void> {
    const target = path.join(this.dir(id), LOWER_VIEW_DIR);
    while ((await mountCount(target)) > 0) await unmountPath(target);
  }

  /**
   * mount's options, target and working directory: the layers' own paths when they fit in a page,
   * else the short links relative to the store's root; an error when neither fits.
   */
  private mountArguments(record: RootfsRecord, view: 'merged' | 'lower' = 'merged'): { options: string; target: string; cwd: string; links: Array<[string, string]> } {
    const limit = mountOptionsLimit();
    const upper = (dir: string) => (view === 'merged' ? { upperDir: path.join(dir, UPPER_DIR), workDir: path.join(dir, WORK_DIR) } : undefined);
    const targetName = view === 'merged' ? MERGED_DIR : LOWER_VIEW_DIR;
    const absolute = overlayOptions({ lowerDirs: record.lowerDirs, upper: upper(this.dir(record.id)) });
    const plain = [this.root, ...record.lowerDirs].every(isPlainOptionPath);
    if (plain && Buffer.byteLength(absolute) <= limit) return { options: absolute, target: path.join(this.dir(record.id), targetName), cwd: '/', links: [] };
    const links = record.lowerDirs.map((dir) => path.join(LINKS_DIR, linkName(dir)));
    const relative = overlayOptions({ lowerDirs: links, upper: upper(record.id) });
    if (Buffer.byteLength(relative) > limit) {
      throw invalidParameter(
        `cannot mount a root filesystem of ${record.lowerDirs.length} layers: its overlay mount options take ${Buffer.byteLength(relative)} bytes, over the kernel's limit of ${limit}`,
      );
    }
    return { options: relative, target: path.join(record.id, targetName), cwd: this.root, links: links.map((link, i) => [link, record.lowerDirs[i]]) };
  }

  /** `<root>/l/<short>` → the layer directory; links are derived from the records, made when needed. */
  private ensureLink(link: string, target: string): void {
    const file = path.join(this.root, link);
    try {
      if (readlinkSync(file) === target) return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const tmp = `${file}.tmp-${process.pid}`;
    rmSync(tmp, { force: true });
    symlinkSync(target, tmp);
    renameSync(tmp, file);
  }

  /** Deletes the links that no root filesystem uses any more. */
  private collectLinks(): void {
    const used = new Set<string>();
    for (const record of this.records.values()) for (const dir of record.lowerDirs) used.add(linkName(dir));
    const linksDir = path.join(this.root, LINKS_DIR);
    for (const name of readdirSync(linksDir)) if (!used.has(name)) rmSync(path.join(linksDir, name), { force: true });
  }

  private exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return next;
  }
}

/** A short name for a layer directory's link, the same for every root filesystem using that layer. */
function linkName(dir: string): string {
  const digest = createHash('sha256').update(dir).digest();
  let bits = 0;
  let value = 0;
  let name = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && name.length < LINK_NAME_LENGTH) {
      name += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return name;
}
