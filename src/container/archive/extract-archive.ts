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
import { execFileSync } from 'node:child_process';
import { closeSync, constants, fchmodSync, fchownSync, futimesSync, lchownSync, linkSync, lutimesSync, mkdirSync, openSync, readdirSync, rmdirSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { extract, type Header } from 'tar-stream';
import { EngineError } from '../../errors.js';
import { cleanArchivePath } from '../../image/archive/safe-path.js';
import { displayPath, fsPath, toBytePath, type BytePath } from '../../image/rootfs/byte-path.js';
import { selfPath, type DirHandle, type ScopedRoot } from './scoped-root.js';

export interface ExtractOptions {
  root: ScopedRoot;
  /** the directory, resolved, as a container path (bytes) */
  dest: BytePath;
  noOverwriteDirNonDir: boolean;
  /** every entry's owner instead of the archive's (copyUIDGID) */
  owner?: { uid: number; gid: number };
}

/** dockerd's wording for a failed extraction (the exit status is its re-executed helper's). */
function failure(message: string): EngineError {
  return new EngineError('system', `Error processing tar file(exit status 1): ${message}`);
}

export async function extractArchive(tar: Readable, opts: ExtractOptions): Promise<void> {
  const extractor = new Extractor(opts);
  const entries = extract();
  tar.on('error', (err) => entries.destroy(err));
  tar.pipe(entries);
  try {
    for await (const entry of entries) {
      await extractor.entry(entry.header, entry as AsyncIterable<Buffer>);
    }
    extractor.directoryTimes();
  } catch (err) {
    if (err instanceof EngineError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw failure(code === undefined ? (err as Error).message.replace(/^Unexpected end of data$/, 'unexpected EOF') : (err as Error).message);
  } finally {
    tar.unpipe(entries);
  }
}

class Extractor {
  private readonly dirTimes: Array<{ path: BytePath; mtime: number }> = [];

  constructor(private readonly opts: ExtractOptions) {}

  async entry(header: Header, data: AsyncIterable<Buffer>): Promise<void> {
    const { dest } = this.opts;
    const rawName = toBytePath(header.name);
    const rel = cleanArchivePath(rawName);
    if (rel === undefined) throw failure(`${quote(rawName)} is outside of ${quote(dest)}`);
    if (rel === '') return drain(data);
    const target = `${dest === '/' ? '' : dest}/${rel}`;
    const parent = this.parentDir(path.posix.dirname(target));
    try {
      const name = path.posix.basename(target);
      const at = `${selfPath(parent.fd)}/${name}`;
      const existing = parent.opaque ? undefined : this.opts.root.lookup(parent, name);
      const isDir = header.type === 'directory';
      if (existing !== undefined) {
        const existingDir = existing.stats.isDirectory();
        if (this.opts.noOverwriteDirNonDir && existingDir && !isDir) throw failure(`cannot overwrite directory ${quote(target)} with non-directory ${quote(dest)}`);
        if (this.opts.noOverwriteDirNonDir && !existingDir && isDir) throw failure(`cannot overwrite non-directory ${quote(target)} with directory ${quote(dest)}`);
        if (!(existingDir && isDir)) {
          // a stopped container's mount point: its source stands there
          if (existing.follow) throw failure(`cannot replace the mount point ${quote(target)}`);
          removeEntry(parent, name, existingDir);
        }
      }
      const uid = this.opts.owner?.uid ?? header.uid ?? 0;
      const gid = this.opts.owner?.gid ?? header.gid ?? 0;
      const mode = (header.mode ?? 0o644) & 0o7777;
      const mtime = (header.mtime ?? new Date(0)).getTime() / 1000;
      switch (header.type) {
        case 'file':
        case 'contiguous-file':
          await writeFile(fsPath(at), data, { uid, gid, mode, mtime });
          return;
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
          execFileSync('mknod', ['-m', mode.toString(8), `/proc/${process.pid}/fd/${parent.fd}/${displayPath(name)}`, ...kind]);
          lchownSync(fsPath(at), uid, gid);
          break;
        }
        default:
          // pax global headers and types dockerd skips too
          break;
      }
      await drain(data);
    } finally {
      this.opts.root.release([parent]);
    }
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

  /** The parent directory of an entry, open; made (0755) where missing, as dockerd's MkdirAll. */
  private parentDir(dir: BytePath): DirHandle {
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
    const rel = cleanArchivePath(linkname);
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

async function writeFile(file: Buffer, data: AsyncIterable<Buffer>, meta: { uid: number; gid: number; mode: number; mtime: number }): Promise<void> {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    for await (const chunk of data) {
      for (let offset = 0; offset < chunk.length; ) offset += writeSync(fd, chunk, offset);
    }
    fchownSync(fd, meta.uid, meta.gid);
    // after chown, which clears setuid bits
    fchmodSync(fd, meta.mode);
    futimesSync(fd, meta.mtime, meta.mtime);
  } finally {
    closeSync(fd);
  }
}

/** Removes `name` from an open directory, a directory with everything in it, never through a link. */
function removeEntry(dir: DirHandle, name: BytePath, isDir: boolean): void {
  const at = fsPath(`${selfPath(dir.fd)}/${name}`);
  if (!isDir) {
    unlinkSync(at);
    return;
  }
  const fd = openSync(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const child: DirHandle = { ...dir, fd };
    for (const entry of readdirSync(fsPath(selfPath(fd)), { withFileTypes: true, encoding: 'buffer' })) {
      removeEntry(child, entry.name.toString('latin1'), entry.isDirectory());
    }
  } finally {
    closeSync(fd);
  }
  rmdirSync(at);
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
