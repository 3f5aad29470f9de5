// Copies in and out of a container (docker cp), its export and its changes (docker diff), as dockerd
// answers them (moby v20.10 daemon/archive.go, daemon/export.go, daemon/changes.go). The container's
// root filesystem is leased for the operation, so neither the end of a run nor the operation's own
// end unmounts it under the other. A running (or paused) container is seen through
// /proc/<pid>/root, with its binds, volumes and tmpfs; a stopped one through its mounted root
// filesystem with its binds' and volumes' sources standing at their destinations.
import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EngineError, invalidParameter, notFound } from '../../errors.js';
import { openLayerTar } from '../../image/archive/layer-compression.js';
import { displayPath, toBytePath, type BytePath } from '../../rootfs/byte-path.js';
import type { Change, RootfsLease, RootfsStore } from '../../rootfs/rootfs-store.js';
import type { ContainerRecord } from '../container-record.js';
import type { ContainerEvents } from '../container-events.js';
import { hasProcess } from '../container-state.js';
import type { ContainerStore } from '../container-store.js';
import type { SessionIo, StreamSession } from '../../lib/stream-session.js';
import { extractArchive } from './extract-archive.js';
import { pathArchive } from './path-archive.js';
import { encodePathStat, pathStat, type PathStat } from './path-stat.js';
import { ScopedRoot, type Entry, type Resolution } from './scoped-root.js';

export interface ContainerArchiveOptions {
  rootfs: RootfsStore;
  store: ContainerStore;
  events: ContainerEvents;
}

/** A tar to send; `stat` (archive-path only) is the X-Docker-Container-Path-Stat header's value. */
export interface TarSession extends StreamSession<Writable> {
  stat?: string;
}

export interface ExtractRequest {
  path: string;
  body: Readable;
  noOverwriteDirNonDir: boolean;
  copyUIDGID: boolean;
}

/** The /etc files berth bind-mounts into every container (etc-files.ts). */
const ETC_FILES = ['/etc/hostname', '/etc/hosts', '/etc/resolv.conf'];

export class ContainerArchive {
  constructor(private readonly opts: ContainerArchiveOptions) {}

  /** HEAD /archive: the path's stat, for the header. */
  async statPath(ref: string, containerPath: string): Promise<string> {
    return this.withPath(ref, containerPath, async (_view, found) => encodePathStat(found.stat));
  }

  /** GET /archive: the stat header, and the tar to send; publishes archive-path. */
  async archivePath(ref: string, containerPath: string): Promise<TarSession & { stat: string }> {
    const record = this.opts.store.resolve(ref);
    const view = await this.open(record);
    try {
      const found = this.find(view, ref, containerPath);
      const archive = pathArchive({
        root: view.root,
        entry: found.entry,
        base: toBytePath(found.stat.name),
        done: () => {
          view.root.release(found.parents);
          void view.close();
        },
      });
      return { stat: encodePathStat(found.stat), run: (io) => this.send(record, 'archive-path', archive, io) };
    } catch (err) {
      await view.close();
      throw err;
    }
  }

  /** PUT /archive: extracts the (possibly compressed) tar into the directory; publishes extract-to-dir. */
  async extractToDir(ref: string, req: ExtractRequest): Promise<void> {
    const record = this.opts.store.resolve(ref);
    const owner = req.copyUIDGID ? containerOwner(record) : undefined;
    const view = await this.open(record);
    try {
      const res = view.root.resolve(toBytePath(absolutePath(req.path)), { followLast: true });
      if (!res.found) throw notInContainer(ref, req.path, res);
      view.root.release(res.parents);
      if (!res.entry.stats.isDirectory()) throw new EngineError('system', 'extraction point is not a directory');
      const mount = mountAt(record, displayPath(res.entry.path));
      if (mount !== undefined && !mount.RW) throw new EngineError('system', 'mounted volume is marked read-only');
      if (mount === undefined && record.hostConfig.ReadonlyRootfs === true) throw new EngineError('system', 'container rootfs is marked read-only');
      const tar = await openLayerTar(req.body);
      await extractArchive(tar, { root: view.root, dest: res.entry.path, noOverwriteDirNonDir: req.noOverwriteDirNonDir, owner });
    } finally {
      await view.close();
    }
    this.opts.events.publish(record, 'extract-to-dir');
  }

  /** GET /export: the merged root filesystem without the container's mounts, to send; publishes export. */
  async export(ref: string): Promise<TarSession> {
    const record = this.opts.store.resolve(ref);
    const lease = await this.opts.rootfs.lease(record.id);
    let root: ScopedRoot;
    try {
      root = new ScopedRoot({ rootFd: openDir(lease.mergedDir), dataMounts: new Set(), mountSources: new Map() });
    } catch (err) {
      await lease.release();
      throw err;
    }
    const entry: Entry = { dir: root.root, name: '', path: '/', stats: fstatSync(root.root.fd, { bigint: true }), hostPath: '', follow: false };
    const archive = pathArchive({
      root,
      entry,
      base: undefined,
      done: () => {
        root.close();
        void lease.release();
      },
    });
    return { run: (io) => this.send(record, 'export', archive, io) };
  }

  /** GET /changes: what the container changed in its own layer (its init layer is below it). */
  async changes(ref: string): Promise<Change[]> {
    return this.opts.rootfs.changes(this.opts.store.resolve(ref).id);
  }

  private async withPath<T>(ref: string, containerPath: string, work: (view: View, found: Found) => Promise<T>): Promise<T> {
    const view = await this.open(this.opts.store.resolve(ref));
    try {
      const found = this.find(view, ref, containerPath);
      try {
        return await work(view, found);
      } finally {
        view.root.release(found.parents);
      }
    } finally {
      await view.close();
    }
  }

  /** Publishes the event and sends the tar; its end (or the client's going) releases what it holds. */
  private async send(record: ContainerRecord, action: string, archive: Readable, { out, signal }: SessionIo<Writable>): Promise<void> {
    this.opts.events.publish(record, action);
    await pipeline(archive, out, { signal });
  }

  /** The path as dockerd's ResolvePath and StatPath see it: the link itself unless a trailing `/` or `/.` asks to follow. */
  private find(view: View, ref: string, containerPath: string): Found {
    const abs = absolutePath(containerPath);
    const res = view.root.resolve(toBytePath(abs), { followLast: false });
    if (!res.found) throw notInContainer(ref, containerPath, res);
    if (/\/\.?$/.test(abs) && !res.entry.stats.isDirectory()) {
      view.root.release(res.parents);
      throw new EngineError('system', `lstat ${abs}: not a directory`);
    }
    let linkTarget = '';
    if (res.entry.stats.isSymbolicLink()) {
      const target = view.root.resolve(toBytePath(abs), { followLast: true });
      view.root.release(target.parents);
      linkTarget = displayPath(target.found ? target.entry.path : target.reason === 'missing' ? path.posix.join(target.parents[target.parents.length - 1].path, target.name, ...target.rest) : abs);
    }
    const name = abs === '/' ? '/' : path.posix.basename(abs);
    return { entry: res.entry, parents: res.parents, stat: pathStat(name, res.entry.stats, linkTarget) };
  }

  private async open(record: ContainerRecord): Promise<View> {
    const lease = await this.opts.rootfs.lease(record.id);
    try {
      const root = hasProcess(record.state.status) ? runningRoot(record, lease) : undefined;
      const scoped = root ?? stoppedRoot(record, lease);
      return {
        root: scoped,
        close: () => {
          scoped.close();
          return lease.release();
        },
      };
    } catch (err) {
      await lease.release();
      throw err;
    }
  }
}

interface View {
  root: ScopedRoot;
  close(): Promise<void>;
}

interface Found {
  entry: Entry;
  parents: Resolution['parents'];
  stat: PathStat;
}

/** dockerd's ResolvePath cleaning: lexically, from the root, keeping a trailing `/` or `/.`. */
export function absolutePath(p: string): string {
  if (p === '') throw invalidParameter('bad parameter: pathcannot be empty');
  const clean = path.posix.join('/', p);
  if (clean === '/') return clean;
  if (p.endsWith('/.')) return `${clean}/.`;
  if (p.endsWith('/')) return `${clean}/`;
  return clean;
}

function notInContainer(ref: string, containerPath: string, res: Resolution & { found: false }): EngineError {
  if (res.reason === 'not-a-directory') return new EngineError('system', `lstat ${absolutePath(containerPath)}: not a directory`);
  return notFound(`Could not find the file ${containerPath} in container ${ref}`);
}

/**
 * The running container's own root, if its first process is still the container's: the root
 * opened through /proc/<pid>/root must be the overlay mounted at the merged directory (a pid reused
 * after the container ended would show another root).
 */
function runningRoot(record: ContainerRecord, lease: RootfsLease): ScopedRoot | undefined {
  if (record.state.pid <= 0) return undefined;
  let fd: number;
  try {
    fd = openDir(`/proc/${record.state.pid}/root`);
  } catch {
    return undefined;
  }
  const seen = fstatSync(fd, { bigint: true });
  const merged = statSync(lease.mergedDir, { bigint: true });
  if (seen.dev !== merged.dev || seen.ino !== merged.ino) {
    closeSync(fd);
    return undefined;
  }
  const data = new Set<BytePath>([...record.mountPoints.map((m) => m.Destination), ...Object.keys(record.hostConfig.Tmpfs ?? {}), ...ETC_FILES].map(toBytePath));
  return new ScopedRoot({ rootFd: fd, dataMounts: data, mountSources: new Map() });
}

function stoppedRoot(record: ContainerRecord, lease: RootfsLease): ScopedRoot {
  const sources = new Map<BytePath, BytePath>();
  for (const m of record.mountPoints) if (m.Source !== '') sources.set(toBytePath(path.posix.normalize(m.Destination)), toBytePath(m.Source));
  return new ScopedRoot({ rootFd: openDir(lease.mergedDir), dataMounts: new Set(), mountSources: sources });
}

function openDir(dir: string): number {
  return openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
}

/** The mount point holding a container path (the deepest), if any. */
function mountAt(record: ContainerRecord, containerPath: string): ContainerRecord['mountPoints'][number] | undefined {
  let best: ContainerRecord['mountPoints'][number] | undefined;
  for (const m of record.mountPoints) {
    const dest = path.posix.normalize(m.Destination);
    if ((containerPath === dest || containerPath.startsWith(`${dest}/`) || dest === '/') && (best === undefined || dest.length > best.Destination.length)) best = m;
  }
  return best;
}

/** copyUIDGID: the owner of the container's user; numeric IDs only (dockerd looks names up with getent). */
function containerOwner(record: ContainerRecord): { uid: number; gid: number } | undefined {
  const user = record.config.User ?? '';
  if (user === '') return undefined;
  const m = /^(\d+)(?::(\d+))?$/.exec(user);
  if (m === null) throw new EngineError('system', `getent unable to find entry "${user}" in passwd database`);
  return { uid: Number(m[1]), gid: Number(m[2] ?? m[1]) };
}
