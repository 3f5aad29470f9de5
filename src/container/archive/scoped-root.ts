// A container's file system as the container sees it, walked from a directory descriptor of its
// root and never left. Paths resolve one component at a time, as securejoin and dockerd's
// FollowSymlinkInScope do: a symbolic link's target is read and walked in the container's terms
// (an absolute target starts again from the container's root, `..` never climbs above it). Every
// step opens the next directory relative to the descriptor of the one before, through
// /proc/self/fd/N/NAME with O_NOFOLLOW, and names are single components (never `.`, `..` or with a
// slash), so the kernel is never handed a path it could resolve outside the root: a link that the
// container swaps in between two steps is met as a link, not followed.
//
// Mounts: the root may be a running container's /proc/<pid>/root, where the container's own mounts
// show. A directory on another device is walked into only when it is one of the container's data
// mounts (binds, volumes, tmpfs, the /etc files) or lies inside one; the runtime's (/proc, /sys,
// /dev) read as empty, as they are in the image. For a stopped container the data mounts are
// mapped instead: their sources stand in for their destinations.
// Names and paths are byte strings (byte-path.ts): a container may hold names that are not UTF-8.
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../errors.js';
import { fsPath, type BytePath } from '../../rootfs/byte-path.js';

/** Symbolic links followed in one resolution before it is refused, as Linux's MAXSYMLINKS. */
const MAX_LINKS = 40;

export interface ScopedRootOptions {
  /** a descriptor of the root directory, owned by the ScopedRoot from now on */
  rootFd: number;
  /** container paths whose mounts are walked into (running containers) */
  dataMounts: ReadonlySet<BytePath>;
  /** container path → host source, standing in for the destination (stopped containers) */
  mountSources: ReadonlyMap<BytePath, BytePath>;
}

/** An open directory of the walk and where it is in the container. */
export interface DirHandle {
  fd: number;
  /** clean, absolute, in the container */
  path: string;
  dev: bigint;
  /** inside a data mount: mounts below it are walked into */
  inData: boolean;
  /** a runtime mount: it reads as empty */
  opaque: boolean;
}

/** A name found in an open directory: how to open it, and its lstat. */
export interface Entry {
  dir: DirHandle;
  name: string;
  path: string;
  stats: BigIntStats;
  /** the path to open it by: /proc/self/fd/N/NAME, or a mount's source */
  hostPath: string;
  /** a mount's source may itself be reached through a link on the host; the container's own names never */
  follow: boolean;
}

export type Resolution =
  | { found: true; entry: Entry; parents: DirHandle[] }
  /** missing: `name` is not in the deepest directory reached, and `rest` was still to walk */
  | { found: false; parents: DirHandle[]; reason: 'missing'; name: BytePath; rest: BytePath[] }
  | { found: false; parents: DirHandle[]; reason: 'not-a-directory' };

export class ScopedRoot {
  readonly root: DirHandle;
  private readonly opts: ScopedRootOptions;

  constructor(opts: ScopedRootOptions) {
    this.opts = opts;
    const stats = fstatSync(opts.rootFd, { bigint: true });
    this.root = { fd: opts.rootFd, path: '/', dev: stats.dev, inData: false, opaque: false };
  }

  close(): void {
    closeSync(this.root.fd);
  }

  /**
   * Resolves `containerPath` in the container. A symbolic link as the last component is followed
   * only with `followLast` (a trailing `/` or `/.` asks for it too). The directories returned stay
   * open until `release`.
   */
  resolve(containerPath: string, opts: { followLast: boolean }): Resolution {
    const followLast = opts.followLast || /\/\.?$/.test(containerPath);
    const pending = components(containerPath);
    const stack: DirHandle[] = [this.root];
    let links = 0;
    let last: Entry | undefined = { dir: this.root, name: '', path: '/', stats: this.stat(this.root), hostPath: selfPath(this.root.fd), follow: false };
    try {
      while (pending.length > 0) {
        const name = pending.shift() as string;
        const top = stack[stack.length - 1];
        if (name === '..') {
          if (stack.length > 1) closeSync((stack.pop() as DirHandle).fd);
          const dir = stack[stack.length - 1];
          last = { dir, name: '', path: dir.path, stats: this.stat(dir), hostPath: selfPath(dir.fd), follow: false };
          continue;
        }
        const entry = this.lookup(top, name);
        if (entry === undefined) return { found: false, parents: stack, reason: 'missing', name, rest: pending };
        const isLast = pending.length === 0;
        if (entry.stats.isSymbolicLink() && (!isLast || followLast) && !entry.follow) {
          if (++links > MAX_LINKS) throw new EngineError('system', `too many levels of symbolic links in ${containerPath}`);
          const target = readlinkSync(fsPath(entry.hostPath), { encoding: 'buffer' }).toString('latin1');
          if (target.startsWith('/')) while (stack.length > 1) closeSync((stack.pop() as DirHandle).fd);
          pending.unshift(...components(target));
          const dir = stack[stack.length - 1];
          last = { dir, name: '', path: dir.path, stats: this.stat(dir), hostPath: selfPath(dir.fd), follow: false };
          continue;
        }
        if (isLast && !entry.stats.isDirectory()) return { found: true, entry, parents: stack };
        if (!entry.stats.isDirectory()) return { found: false, parents: stack, reason: 'not-a-directory' };
        const child = this.openDir(entry);
        stack.push(child);
        last = { dir: child, name: '', path: child.path, stats: this.stat(child), hostPath: selfPath(child.fd), follow: false };
      }
      return { found: true, entry: last, parents: stack };
    } catch (err) {
      this.release(stack);
      throw err;
    }
  }

  /** Closes the directories of a resolution (not the root). */
  release(dirs: DirHandle[]): void {
    for (const dir of dirs) if (dir !== this.root) closeSync(dir.fd);
  }

  /** The entry `name` of an open directory, undefined when it does not exist (or the directory reads as empty). */
  lookup(dir: DirHandle, name: string): Entry | undefined {
    if (dir.opaque) return undefined;
    const childPath = path.posix.join(dir.path, name);
    const source = this.opts.mountSources.get(childPath);
    if (source !== undefined) {
      const stats = statOrUndefined(source, true);
      return stats && { dir, name, path: childPath, stats, hostPath: source, follow: true };
    }
    const hostPath = `${selfPath(dir.fd)}/${name}`;
    const stats = statOrUndefined(hostPath, false);
    return stats && { dir, name, path: childPath, stats, hostPath, follow: false };
  }

  /** Opens a directory entry (found by lookup) for the walk. */
  openDir(entry: Entry): DirHandle {
    const fd = openSync(fsPath(entry.hostPath), constants.O_RDONLY | constants.O_DIRECTORY | (entry.follow ? 0 : constants.O_NOFOLLOW));
    try {
      const stats = fstatSync(fd, { bigint: true });
      const crossed = stats.dev !== entry.dir.dev;
      const data = entry.follow || this.opts.dataMounts.has(entry.path);
      return { fd, path: entry.path, dev: stats.dev, inData: entry.dir.inData || data, opaque: crossed && !data && !entry.dir.inData };
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  private stat(dir: DirHandle): BigIntStats {
    return fstatSync(dir.fd, { bigint: true });
  }
}

/** The path through which the kernel reaches an open descriptor's directory. */
export function selfPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** A path's components, empty ones and `.` dropped (`..` kept: resolution handles it). */
function components(p: string): string[] {
  if (p.includes('\0')) throw new EngineError('invalidParameter', `invalid path ${JSON.stringify(p)}`);
  return p.split('/').filter((c) => c !== '' && c !== '.');
}

function statOrUndefined(file: BytePath, follow: boolean): BigIntStats | undefined {
  try {
    return follow ? statSync(fsPath(file), { bigint: true }) : lstatSync(fsPath(file), { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
