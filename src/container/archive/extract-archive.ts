// PUT /containers/{id}/archive: a tar extracted into a directory of the container, as dockerd's
// archive.Unpack does it inside a chroot at the container's root (moby v20.10 pkg/archive,
// pkg/chrootarchive): names are cleaned (a rooted name stays under the directory, one that climbs
// out is refused), a relative symbolic link may not point above the directory, a hard link must
// name something under it, parents missing from the archive are made 0755, an existing entry is
// replaced unless both are directories (which merge), and the `.` entry changes nothing.
// Without a chroot, every parent is resolved through the ScopedRoot (links followed in the
// container's terms, never outside it) and every change is made relative to the parent's
// descriptor, without following a link at the last component. An error stops the extraction where
// it is: the entries before it stay, as with dockerd.
// Speed: consecutive entries of one directory share its resolved descriptor (until an entry could
// change how paths resolve); the slow calls (removing a file, creating one, writing it) run in
// libuv's pool, in the same order, while the event loop goes on reading the archive ahead.
import { closeSync, constants, fchmodSync, fchownSync, futimesSync, lchownSync, linkSync, lutimesSync, mkdirSync, open, openSync, symlinkSync, writev } from 'node:fs';
import { open as openHandle, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { extract, type Header } from 'tar-stream';
import { EngineError } from '../../errors.js';
import { displayPath, fsPath, toBytePath, type BytePath } from '../../rootfs/byte-path.js';
import { runCommand } from '../../runtime/child-process.js';
import { selfPath, type DirHandle, type ScopedRoot } from './scoped-root.js';

export interface ExtractOptions {
  root: ScopedRoot;
  /** the directory, resolved, as a container path (bytes) */
  dest: BytePath;
  noOverwriteDirNonDir: boolean;
  /** every entry's owner instead of the archive's (copyUIDGID) */
  owner?: { uid: number; gid: number };
  /** sees every entry's header and bytes as they are extracted (a build context's checksums), in one reading of the archive */
  observe?: (header: Header) => EntryObserver;
}

export interface EntryObserver {
  data(chunk: Buffer): void;
  /** the entry is extracted */
  end(): void;
}

/** dockerd's wording for a failed extraction (the exit status is its re-executed helper's). */
function failure(message: string, cause?: unknown): EngineError {
  return new EngineError('system', `Error processing tar file(exit status 1): ${message}`, { cause });
}

/**
 * Archive bytes taken from the request while the entries' files are removed, made and written: the
 * client goes on sending meanwhile (with a few hundred KiB, it waited on every file).
 */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

export async function extractArchive(tar: Readable, opts: ExtractOptions): Promise<void> {
  const extractor = new Extractor(opts);
  const entries = extract({ highWaterMark: READ_AHEAD_BYTES });
  tar.on('error', (err) => entries.destroy(err));
  tar.pipe(entries);
  try {
    for await (const entry of entries) {
      const observer = opts.observe?.(entry.header);
      await extractor.entry(entry.header, observer === undefined ? (entry as AsyncIterable<Buffer>) : tap(entry as AsyncIterable<Buffer>, observer));
      observer?.end();
    }
    extractor.forgetParent();
    extractor.directoryTimes();
  } catch (err) {
    if (err instanceof EngineError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    // the cause is the archive reader's, when the archive itself is bad
    throw failure(code === undefined ? (err as Error).message.replace(/^Unexpected end of data$/, 'unexpected EOF') : (err as Error).message, code === undefined ? err : undefined);
  } finally {
    extractor.forgetParent();
    tar.unpipe(entries);
  }
}

async function* tap(data: AsyncIterable<Buffer>, observer: EntryObserver): AsyncGenerator<Buffer> {
  for await (const chunk of data) {
    observer.data(chunk);
    yield chunk;
  }
}

class Extractor {
  private readonly dirTimes: Array<{ path: BytePath; mtime: number }> = [];
  /** the last entry's parent, still open, by the container path that resolved to it */
  private parent: { dir: BytePath; handle: DirHandle } | undefined;

  constructor(private readonly opts: ExtractOptions) {}

  async entry(header: Header, data: AsyncIterable<Buffer>): Promise<void> {
    const { dest } = this.opts;
    const rawName = toBytePath(header.name);
    const rel = relativeToDest(dest, rawName);
    if (rel === undefined) throw failure(`${quote(rawName)} is outside of ${quote(dest)}`);
    if (rel === '') return drain(data);
    const target = `${dest === '/' ? '' : dest}/${rel}`;
    const parent = this.parentDir(path.posix.dirname(target), target);
    let keepsPaths = false;
    try {
      const name = path.posix.basename(target);
      const at = `${selfPath(parent.fd)}/${name}`;
      const existing = parent.opaque ? undefined : this.opts.root.lookup(parent, name);
      const isDir = header.type === 'directory';
      // Paths resolve through directories and links only: the kept parent stays right unless one is
      // removed or made (a hard link may be one to a link).
      keepsPaths = !(existing?.stats.isDirectory() === true || existing?.stats.isSymbolicLink() === true || isDir || header.type === 'symlink' || header.type === 'link');
      const isFile = header.type === 'file' || header.type === 'contiguous-file';
      let cleared = Promise.resolve();
      if (existing !== undefined) {
        const existingDir = existing.stats.isDirectory();
        if (this.opts.noOverwriteDirNonDir && existingDir && !isDir) throw failure(`cannot overwrite directory ${quote(target)} with non-directory ${quote(dest)}`);
        if (this.opts.noOverwriteDirNonDir && !existingDir && isDir) throw failure(`cannot overwrite non-directory ${quote(target)} with directory ${quote(dest)}`);
        if (!(existingDir && isDir)) {
          // a stopped container's mount point: its source stands there
          if (existing.follow) throw failure(`cannot replace the mount point ${quote(target)}`);
          cleared = removeEntry(parent, name, existingDir);
          // a file's contents are gathered while it goes: writeFile waits for it
          if (!isFile) await cleared;
        }
      }
      const uid = this.opts.owner?.uid ?? header.uid ?? 0;
      const gid = this.opts.owner?.gid ?? header.gid ?? 0;
      const mode = (header.mode ?? 0o644) & 0o7777;
      const mtime = (header.mtime ?? new Date(0)).getTime() / 1000;
      if (isFile) return await writeFile(fsPath(at), cleared, data, { uid, gid, mode, mtime });
      switch (header.type) {
        case 'directory': {
          if (existing === undefined) mkdirSync(fsPath(at), 0o700);
          const fd = openSync(fsPath(existing?.hostPath ?? at), constants.O_RDONLY | constants.O_DIRECTORY | (existing?.follow === true ? 0 : constants.O_NOFOLLOW));
          try {
            fchownSync(fd, uid, gid);
            fchmodSync(fd, mode);
          } finally {
            closeSync(fd);
          }
          this.dirTimes.push({ path: target, mtime });
          break;
        }
        case 'symlink': {
          const linkname = toBytePath(header.linkname ?? '');
          if (!linkname.startsWith('/') && !isUnder(path.posix.join(path.posix.dirname(target), linkname), dest)) {
            throw failure(`invalid symlink ${quote(target)} -> ${quote(linkname)}`);
          }
          symlinkSync(fsPath(linkname), fsPath(at));
          lchownSync(fsPath(at), uid, gid);
          lutimesSync(fsPath(at), mtime, mtime);
          break;
        }
        case 'link':
          this.hardLink(toBytePath(header.linkname ?? ''), at, target);
          break;
        case 'fifo':
        case 'character-device':
        case 'block-device': {
          // Node has no mknod(2); the command reaches the parent through berthd's own descriptor table
          const kind = header.type === 'fifo' ? ['p'] : [header.type === 'block-device' ? 'b' : 'c', String(header.devmajor ?? 0), String(header.devminor ?? 0)];
          await runCommand('mknod', ['-m', mode.toString(8), `/proc/${process.pid}/fd/${parent.fd}/${displayPath(name)}`, ...kind]).catch((err: Error) => {
            throw failure(err.message);
          });
          lchownSync(fsPath(at), uid, gid);
          break;
        }
        default:
          // pax global headers and types dockerd skips too
          break;
      }
      await drain(data);
    } finally {
      if (!keepsPaths) this.forgetParent();
    }
  }

  /** Closes the kept parent directory. */
  forgetParent(): void {
    if (this.parent !== undefined) this.opts.root.release([this.parent.handle]);
    this.parent = undefined;
  }

  /** Directory times last, once nothing more is written into them. */
  directoryTimes(): void {
    for (const { path: dir, mtime } of this.dirTimes.reverse()) {
      const res = this.opts.root.resolve(dir, { followLast: false });
      if (!res.found) continue;
      if (res.entry.name === '') futimesSync(res.entry.dir.fd, mtime, mtime);
      this.opts.root.release(res.parents);
    }
  }

  /**
   * The parent directory of an entry, open (kept for the next entries); made (0755) where missing,
   * as dockerd's MkdirAll, but only when its own name is missing (dockerd's Lstat): a link to a
   * directory that does not exist is no directory to make, and the entry cannot be written there.
   */
  private parentDir(dir: BytePath, target: BytePath): DirHandle {
    if (this.parent?.dir === dir) return this.parent.handle;
    this.forgetParent();
    const named = this.opts.root.resolve(dir, { followLast: false });
    this.opts.root.release(named.parents);
    if (named.found && named.entry.stats.isSymbolicLink()) {
      const res = this.opts.root.resolve(dir, { followLast: true });
      this.opts.root.release(res.parents);
      if (!res.found) throw failure(`open ${displayPath(target)}: no such file or directory`);
    }
    const handle = this.resolveParent(dir);
    this.parent = { dir, handle };
    return handle;
  }

  private resolveParent(dir: BytePath): DirHandle {
    for (;;) {
      const res = this.opts.root.resolve(dir, { followLast: true });
      if (res.found) {
        const top = res.parents.pop() as DirHandle;
        this.opts.root.release(res.parents);
        if (!res.entry.stats.isDirectory() || top.path !== res.entry.path) {
          this.opts.root.release([top]);
          throw failure(`mkdir ${quote(dir)}: not a directory`);
        }
        return top;
      }
      const top = res.parents[res.parents.length - 1];
      try {
        if (res.reason === 'not-a-directory' || top.opaque) throw failure(`mkdir ${quote(dir)}: not a directory`);
        mkdirSync(fsPath(`${selfPath(top.fd)}/${res.name}`), 0o755);
      } finally {
        this.opts.root.release(res.parents);
      }
    }
  }

  private hardLink(linkname: BytePath, at: BytePath, target: BytePath): void {
    const { dest, root } = this.opts;
    const rel = relativeToDest(dest, linkname);
    if (rel === undefined) throw failure(`invalid hardlink ${quote(path.posix.join(dest, linkname))} -> ${quote(linkname)}`);
    const res = root.resolve(`${dest === '/' ? '' : dest}/${rel}`, { followLast: false });
    try {
      if (!res.found) throw failure(`link ${displayPath(path.posix.join(dest, rel))} ${displayPath(target)}: no such file or directory`);
      if (res.entry.stats.isDirectory()) throw failure(`link ${displayPath(path.posix.join(dest, rel))} ${displayPath(target)}: operation not permitted`);
      linkSync(fsPath(res.entry.hostPath), fsPath(at));
    } finally {
      root.release(res.parents);
    }
  }
}

/** Bytes gathered from the archive before one write: few calls, and little held in memory. */
const WRITE_BATCH_BYTES = 1024 * 1024;

const openFd = promisify(open);
const writevFd = promisify(writev);

/**
 * Creates `file` once `cleared` (the removal of what stood there) is done, and writes the entry's
 * contents: the first batch is gathered meanwhile, each batch is written while the next one is
 * gathered, never more than one write ahead.
 */
async function writeFile(file: Buffer, cleared: Promise<void>, data: AsyncIterable<Buffer>, meta: { uid: number; gid: number; mode: number; mtime: number }): Promise<void> {
  const opened = cleared.then(() => openFd(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  // failures are met at the next await; until then they must not count as unhandled
  opened.catch(() => undefined);
  let writing: Promise<void> = Promise.resolve();
  try {
    let batch: Buffer[] = [];
    let batchBytes = 0;
    for await (const chunk of data) {
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes < WRITE_BATCH_BYTES) continue;
      const fd = await opened;
      await writing;
      writing = writeAll(fd, batch);
      writing.catch(() => undefined);
      batch = [];
      batchBytes = 0;
    }
    const fd = await opened;
    await writing;
    await writeAll(fd, batch);
    fchownSync(fd, meta.uid, meta.gid);
    // after chown, which clears setuid bits
    fchmodSync(fd, meta.mode);
    futimesSync(fd, meta.mtime, meta.mtime);
  } finally {
    // a write still under way must end before the descriptor closes
    await writing.catch(() => undefined);
    const fd = await opened.catch(() => undefined);
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes every byte of `rest` (which it empties), again after a short write. */
async function writeAll(fd: number, rest: Buffer[]): Promise<void> {
  while (rest.length > 0) {
    let { bytesWritten } = await writevFd(fd, rest);
    while (rest.length > 0 && bytesWritten >= rest[0].length) bytesWritten -= (rest.shift() as Buffer).length;
    if (bytesWritten > 0) rest[0] = rest[0].subarray(bytesWritten);
  }
}

/** Removes `name` from an open directory, a directory with everything in it, never through a link. */
async function removeEntry(dir: DirHandle, name: BytePath, isDir: boolean): Promise<void> {
  const at = fsPath(`${selfPath(dir.fd)}/${name}`);
  if (!isDir) {
    await unlink(at);
    return;
  }
  const handle = await openHandle(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const child: DirHandle = { ...dir, fd: handle.fd };
    for (const entry of await readdir(fsPath(selfPath(handle.fd)), { withFileTypes: true, encoding: 'buffer' })) {
      await removeEntry(child, entry.name.toString('latin1'), entry.isDirectory());
    }
  } finally {
    await handle.close();
  }
  await rmdir(at);
}

/**
 * dockerd's test (Unpack, and createTarFile for hard links): the name joined to the directory and
 * cleaned must stay inside it. A leading `..` is thus refused, except at `/`, where it stays at the
 * root as in dockerd's chroot (the builder extracts its context that way). '' is the directory itself.
 */
function relativeToDest(dest: BytePath, name: BytePath): BytePath | undefined {
  if (name.includes('\0')) return undefined;
  const rel = path.posix.relative(dest, path.posix.join(dest, name));
  return rel === '..' || rel.startsWith('../') ? undefined : rel;
}

function isUnder(p: BytePath, dir: BytePath): boolean {
  return dir === '/' || p === dir || p.startsWith(`${dir}/`);
}

/** Go's %q, near enough for paths. */
function quote(p: BytePath): string {
  return JSON.stringify(displayPath(p));
}

async function drain(data: AsyncIterable<Buffer>): Promise<void> {
  for await (const chunk of data) void chunk;
}
