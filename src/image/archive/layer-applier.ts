// Applies one image layer (an uncompressed tar) to an empty directory that overlayfs then uses as a
// lower layer, as dockerd's overlay2 driver does (archive.Unpack with the overlay whiteout converter,
// moby v20.10.27 pkg/archive/archive.go and archive_linux.go):
//   - `dir/.wh.NAME` becomes a 0/0 character device at dir/NAME, `dir/.wh..wh..opq` the xattr
//     trusted.overlay.opaque=y on dir; other `.wh..wh.*` names are AUFS metadata and skipped;
//   - a later entry replaces an earlier one at the same path, except that a directory over a
//     directory merges;
//   - ownership, then xattrs, then permissions (chown clears setuid bits and file capabilities),
//     then times; directory times last, once nothing more is written into them.
// dockerd extracts in a chroot so that symlinks cannot lead outside; berth has none, so no path is
// ever resolved through a symbolic link: every parent component is lstat'ed and must be a real
// directory, files are created with O_EXCL|O_NOFOLLOW, and only lchown/lutimes/`setfattr -h` touch
// what may be a link. A hard link may name a file of a parent layer: that file is copied up first.
// Parent directories the archive does not list are made like the parent layers' (dockerd makes them
// 0755 root:root, which changes the merged directory; dockerd's own layers always list them).
import { chmodSync, closeSync, constants, fchmodSync, fchownSync, futimesSync, lchownSync, linkSync, lstatSync, lutimesSync, mkdirSync, openSync, readdirSync, readlinkSync, symlinkSync, writeSync, type Stats } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, type Header } from 'tar-stream';
import { EngineError, invalidParameter } from '../../errors.js';
import { runCommand } from '../../runtime/child-process.js';
import { PaxXattrScanner } from './pax-xattrs.js';
import { cleanArchivePath, lstatNoFollow, lstatOrUndefined, parentsOf } from './safe-path.js';

export interface ApplyLayerOptions {
  /** an existing empty directory; nothing is ever written outside it */
  target: string;
  /** the parent layers' directories, topmost first (read only, for hard links to their files) */
  lowerDirs: string[];
  signal?: AbortSignal;
}

/**
 * Extracts the layer tar into `target`. `sizeBytes` is dockerd's layer size (pkg/directory.Size over
 * the applied directory): the sizes of everything but directories, a hard-linked inode counted once.
 * Refuses a malformed or malicious archive with an invalidParameter EngineError naming the entry;
 * on any error `target` is left half-written for the caller to delete.
 */
export async function applyLayer(tar: Readable, opts: ApplyLayerOptions): Promise<{ sizeBytes: number }> {
  opts.signal?.throwIfAborted();
  const root = path.resolve(opts.target);
  const rootStats = lstatSync(root);
  if (!rootStats.isDirectory()) throw new EngineError('system', `layer target ${root} is not a directory`);
  const applier = new LayerApplier(root, opts.lowerDirs.map((dir) => path.resolve(dir)), opts.signal);
  await applier.extract(tar);
  const sizeBytes = diskUsage(root);
  await applier.setDirectoryTimes();
  opts.signal?.throwIfAborted();
  return { sizeBytes };
}

/** tar-stream's header as it is: its typings leave out byteOffset, and type is null for a type it does not know */
type TarHeader = Omit<Header, 'type' | 'linkname' | 'pax'> & {
  type: Header['type'] | null;
  linkname: string | null;
  pax: Record<string, string> | null;
  byteOffset: number;
};
type Entry = AsyncIterable<Buffer>;

interface Times {
  atime: number;
  mtime: number;
}

interface Metadata extends Times {
  uid: number;
  gid: number;
  mode: number;
  xattrs: Array<[string, Buffer]>;
}

const WHITEOUT_PREFIX = '.wh.';
const WHITEOUT_META_PREFIX = '.wh..wh.';
const OPAQUE_MARKER = '.wh..wh..opq';
const OPAQUE_XATTR = 'trusted.overlay.opaque';
/** overlayfs reads these from the layers themselves; only the applier may set them */
const OVERLAY_XATTR_PREFIX = 'trusted.overlay.';
const XATTR_PAX_PREFIX = 'SCHILY.xattr.';
/** what dockerd's createTarFile makes; others are refused (GNU sparse files too, which Go's reader would expand) */
const ENTRY_TYPES = new Set(['file', 'contiguous-file', 'directory', 'symlink', 'link', 'character-device', 'block-device', 'fifo']);
const MAX_ID = 0xfffffffe;
/** errors of the file system that a malformed archive causes, rather than the machine */
const ARCHIVE_FAULTS = new Set(['ENAMETOOLONG', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ELOOP', 'EMLINK', 'EINVAL', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_ARG_TYPE', 'ERR_OUT_OF_RANGE']);

class LayerApplier {
  /** paths (relative to the root) checked or made to be real directories in this layer */
  private readonly dirs = new Set<string>();
  /** directories whose times are set at the end */
  private readonly dirTimes = new Map<string, Times>();
  /** directories made opaque by this layer */
  private readonly opaque = new Set<string>();
  private readonly lowerOpaque = new Map<string, boolean>();
  private readonly scanner = new PaxXattrScanner();

  constructor(
    private readonly root: string,
    private readonly lowerDirs: string[],
    private readonly signal: AbortSignal | undefined,
  ) {}

  async extract(tar: Readable): Promise<void> {
    // The first failure decides the error: the caller's stream, the tar parser, or an entry.
    let failure: { fromParser: boolean; err: unknown } | undefined;
    const fail = (fromParser: boolean, err: unknown) => {
      failure ??= { fromParser, err };
    };
    const ex = extract();
    // tar-stream may finish before the last entry is written: wait for it
    let current: Promise<void> = Promise.resolve();
    tar.on('error', (err) => fail(false, err));
    ex.on('error', (err: unknown) => fail(true, err));
    ex.on('entry', (header, stream, next) => {
      stream.on('error', (err: unknown) => fail(true, err));
      current = this.applyEntry(header as unknown as TarHeader, stream as AsyncIterable<Buffer>).then(
        () => next(),
        (err: unknown) => {
          fail(false, err);
          next(err as Error);
        },
      );
    });
    try {
      await pipeline(tar, this.scanner, ex, { signal: this.signal });
    } catch (err) {
      fail(true, err);
    }
    await current;
    this.signal?.throwIfAborted();
    if (failure) throw failure.fromParser ? archiveError(failure.err) : failure.err;
  }

  async setDirectoryTimes(): Promise<void> {
    for (const [rel, times] of this.dirTimes) lutimesSync(this.abs(rel), times.atime, times.mtime);
  }

  private abs(rel: string): string {
    return rel === '' ? this.root : path.join(this.root, rel);
  }

  private async applyEntry(header: TarHeader, stream: Entry): Promise<void> {
    const name = header.name;
    try {
      await this.applyEntryUnder(name, header, stream);
    } catch (err) {
      if (err instanceof EngineError || this.signal?.aborted) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== undefined && ARCHIVE_FAULTS.has(code)) throw refuse(`entry ${quote(name)}: ${(err as Error).message}`, err);
      throw err;
    }
  }

  private async applyEntryUnder(name: string, header: TarHeader, stream: Entry): Promise<void> {
    const rel = cleanArchivePath(name);
    if (rel === undefined) throw refuse(`entry ${quote(name)} leads outside the layer`);
    const xattrs = this.xattrsOf(header, name);
    const base = path.posix.basename(rel);
    // the root itself: dockerd skips it (archive.Unpack: `fi.IsDir() && hdr.Name == "."`)
    if (rel === '') return drain(stream);
    if (base === OPAQUE_MARKER) {
      await drain(stream);
      return this.markOpaque(dirnameOf(rel), name);
    }
    if (rel.split('/').some((part) => part.startsWith(WHITEOUT_META_PREFIX))) return drain(stream);
    if (base.startsWith(WHITEOUT_PREFIX)) {
      await drain(stream);
      return this.whiteout(rel, name, metadataOf(header, name, xattrs));
    }

    if (!ENTRY_TYPES.has(header.type ?? '')) throw refuse(`entry ${quote(name)} has an unsupported type (${header.type ?? 'unknown'})`);
    await this.ensureParents(rel, name);
    const existing = lstatOrUndefined(this.abs(rel));
    if (existing && !(existing.isDirectory() && header.type === 'directory')) await this.remove(rel);
    const meta = metadataOf(header, name, xattrs);
    const file = this.abs(rel);
    switch (header.type) {
      case 'file':
      case 'contiguous-file':
        return this.writeFile(file, stream, meta, name);
      case 'directory':
        await drain(stream);
        if (!existing?.isDirectory()) mkdirSync(file, { mode: 0o700 });
        await this.setMetadata(file, meta, name, { chmod: true });
        this.dirs.add(rel);
        this.dirTimes.set(rel, meta);
        return;
      case 'symlink': {
        await drain(stream);
        const target = header.linkname ?? '';
        if (target === '' || target.includes('\0')) throw refuse(`symbolic link ${quote(name)} has no valid target`);
        symlinkSync(target, file);
        return this.setMetadata(file, meta, name, { chmod: false });
      }
      case 'link':
        await drain(stream);
        return this.hardLink(rel, header.linkname ?? '', meta, name);
      case 'character-device':
      case 'block-device':
      case 'fifo': {
        await drain(stream);
        const kind = header.type === 'fifo' ? 'p' : header.type === 'character-device' ? 'c' : 'b';
        await this.mknod(file, kind, meta.mode, header.devmajor ?? 0, header.devminor ?? 0);
        return this.setMetadata(file, meta, name, { chmod: true });
      }
      default:
        throw new Error(`unreachable: entry type ${header.type}`);
    }
  }

  /**
   * Streams the entry's data into a new file (never through an existing file, link or device).
   * The file calls are synchronous: each takes microseconds in the kernel, while a trip through
   * the thread pool costs more than that, and a layer has thousands of them. Reading the tar
   * stays asynchronous, so the event loop gets its turn between chunks.
   */
  private async writeFile(file: string, stream: Entry, meta: Metadata, name: string): Promise<void> {
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      // one chunk at a time: tar-stream reads no further until the write is done (backpressure)
      for await (const chunk of stream) {
        this.signal?.throwIfAborted();
        let written = 0;
        while (written < chunk.length) written += writeSync(fd, chunk, written);
      }
      fchownSync(fd, meta.uid, meta.gid);
      await this.setXattrs(file, meta.xattrs, name);
      fchmodSync(fd, meta.mode);
      futimesSync(fd, meta.atime, meta.mtime);
    } finally {
      closeSync(fd);
    }
  }

  /** dockerd's order: lchown, xattrs, chmod (not for symbolic links), times (lutimes: never followed). */
  private async setMetadata(file: string, meta: Metadata, name: string, opts: { chmod: boolean }): Promise<void> {
    lchownSync(file, meta.uid, meta.gid);
    await this.setXattrs(file, meta.xattrs, name);
    if (opts.chmod) chmodSync(file, meta.mode);
    lutimesSync(file, meta.atime, meta.mtime);
  }

  private async hardLink(rel: string, linkname: string, meta: Metadata, name: string): Promise<void> {
    const linkRel = cleanArchivePath(linkname);
    if (linkRel === undefined) throw refuse(`hard link ${quote(name)} to ${quote(linkname)} leads outside the layer`);
    if (linkRel === '') throw refuse(`hard link ${quote(name)} to ${quote(linkname)}: the target is a directory`);
    if (linkRel === rel) throw refuse(`hard link ${quote(name)} links to itself`);
    await this.linkSource(linkRel, linkname, name);
    const file = this.abs(rel);
    linkSync(this.abs(linkRel), file);
    // The entry's metadata goes to the shared inode, as dockerd does; a link to a symbolic link
    // is never chmod'ed or utime'd through (that would reach the link's target).
    const stats = lstatSync(file);
    // chown drops file capabilities even to the same owner: only when it changes
    if (stats.uid !== meta.uid || stats.gid !== meta.gid) lchownSync(file, meta.uid, meta.gid);
    await this.setXattrs(file, meta.xattrs, name);
    if (!stats.isSymbolicLink()) chmodSync(file, meta.mode);
    lutimesSync(file, meta.atime, meta.mtime);
  }

  /** Makes sure the hard link's source is a file of this layer, copying it up from a parent layer if need be. */
  private async linkSource(linkRel: string, linkname: string, name: string): Promise<void> {
    const what = `hard link ${quote(name)} to ${quote(linkname)}`;
    const here = await lstatNoFollow(this.root, linkRel);
    if (here.found) {
      if (here.stats.isDirectory()) throw refuse(`${what}: the target is a directory`);
      if (isWhiteout(here.stats)) throw refuse(`${what}: the target was deleted by this layer`);
      return;
    }
    if (here.blockedAt !== undefined) {
      if (here.parentStats.isSymbolicLink()) throw refuse(`${what} goes through the symbolic link ${quote(here.blockedAt)}`);
      throw refuse(`${what}: no such file (${quote(here.blockedAt)} is not a directory)`);
    }
    const below = await this.findBelow(linkRel);
    if (!below) throw refuse(`${what}: no such file in this layer or the layers below`);
    if (below.stats.isDirectory()) throw refuse(`${what}: the target is a directory`);
    if (below.stats.isSocket()) throw refuse(`${what}: the target is a socket`);
    await this.copyUp(linkRel, below, name);
  }

  /** The file at `rel` in the merged view of the parent layers, as overlayfs would find it. */
  private async findBelow(rel: string): Promise<{ file: string; stats: Stats } | undefined> {
    if (this.hidesBelow(rel)) return undefined;
    for (const lower of this.lowerDirs) {
      const walked: string[] = [];
      let missing = false;
      for (const parent of parentsOf(rel)) {
        const dir = path.join(lower, parent);
        const stats = lstatOrUndefined(dir);
        if (stats === undefined) {
          missing = true;
          break;
        }
        // a file, whiteout or symbolic link here hides whatever the layers below have
        if (!stats.isDirectory()) return undefined;
        walked.push(dir);
      }
      if (!missing) {
        const file = path.join(lower, rel);
        const stats = lstatOrUndefined(file);
        if (stats !== undefined) return isWhiteout(stats) ? undefined : { file, stats };
      }
      // not in this layer: the next one down counts only if no directory on the way is opaque here
      for (const dir of walked) if (await this.isLowerOpaque(dir)) return undefined;
    }
    return undefined;
  }

  /** Whether this layer made `rel`'s directory, or one above it, opaque. */
  private hidesBelow(rel: string): boolean {
    return this.opaque.has('') || parentsOf(rel).some((dir) => this.opaque.has(dir));
  }

  private async copyUp(rel: string, below: { file: string; stats: Stats }, name: string): Promise<void> {
    await this.ensureParents(rel, name);
    const { file: source, stats } = below;
    const file = this.abs(rel);
    if (stats.isFile()) {
      await copyFile(source, file, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    } else if (stats.isSymbolicLink()) {
      await symlinkSync(readlinkSync(source), file);
    } else {
      const kind = stats.isFIFO() ? 'p' : stats.isCharacterDevice() ? 'c' : 'b';
      const { major, minor } = splitDevice(stats.rdev);
      await this.mknod(file, kind, stats.mode & 0o7777, major, minor);
    }
    await this.copyMetadata(source, file, stats, name);
  }

  private async copyMetadata(source: string, file: string, stats: Stats, name: string): Promise<void> {
    lchownSync(file, stats.uid, stats.gid);
    await this.setXattrs(file, await readXattrs(source, this.signal), name);
    if (!stats.isSymbolicLink()) chmodSync(file, stats.mode & 0o7777);
    lutimesSync(file, stats.atime, stats.mtime);
  }

  private async isLowerOpaque(dir: string): Promise<boolean> {
    let opaque = this.lowerOpaque.get(dir);
    if (opaque === undefined) {
      const value = await readXattr(dir, OPAQUE_XATTR, this.signal);
      opaque = value?.toString('latin1') === 'y';
      this.lowerOpaque.set(dir, opaque);
    }
    return opaque;
  }

  /**
   * Makes every parent of `rel` a real directory: each is lstat'ed (never followed) and made when
   * missing, like the parent layers' directory if they have one (its owner, mode, xattrs and times,
   * as overlayfs' copy-up), else 0755 root:root as dockerd does.
   */
  private async ensureParents(rel: string, name: string): Promise<void> {
    for (const parent of parentsOf(rel)) {
      if (this.dirs.has(parent)) continue;
      const dir = this.abs(parent);
      const stats = lstatOrUndefined(dir);
      if (stats === undefined) {
        const below = await this.findBelow(parent);
        mkdirSync(dir, { mode: 0o755 });
        if (below?.stats.isDirectory()) {
          await this.copyMetadata(below.file, dir, below.stats, name);
          this.dirTimes.set(parent, { atime: below.stats.atimeMs / 1000, mtime: below.stats.mtimeMs / 1000 });
        }
      } else if (stats.isSymbolicLink()) {
        throw refuse(`entry ${quote(name)} would be extracted through the symbolic link ${quote(parent)}`);
      } else if (!stats.isDirectory()) {
        throw refuse(`entry ${quote(name)}: its parent ${quote(parent)} is not a directory`);
      }
      this.dirs.add(parent);
    }
  }

  /** Removes what an earlier entry put at `rel` (a link itself, never its target). */
  private async remove(rel: string): Promise<void> {
    await rm(this.abs(rel), { recursive: true, force: true });
    const under = `${rel}/`;
    for (const known of [this.dirs, this.opaque]) {
      for (const dir of known) if (dir === rel || dir.startsWith(under)) known.delete(dir);
    }
    for (const dir of this.dirTimes.keys()) if (dir === rel || dir.startsWith(under)) this.dirTimes.delete(dir);
  }

  /** `dir/.wh.NAME`: a 0/0 character device at dir/NAME hides NAME of the layers below. */
  private async whiteout(rel: string, name: string, meta: Metadata): Promise<void> {
    const hidden = path.posix.basename(rel).slice(WHITEOUT_PREFIX.length);
    if (hidden === '' || hidden === '.' || hidden === '..') throw refuse(`whiteout ${quote(name)} names no file`);
    const hiddenRel = path.posix.join(dirnameOf(rel), hidden);
    await this.ensureParents(hiddenRel, name);
    if (lstatOrUndefined(this.abs(hiddenRel))) await this.remove(hiddenRel);
    await this.mknod(this.abs(hiddenRel), 'c', 0, 0, 0);
    lchownSync(this.abs(hiddenRel), meta.uid, meta.gid);
  }

  /** `dir/.wh..wh..opq`: dir hides the contents of the layers' dir below. */
  private async markOpaque(dirRel: string, name: string): Promise<void> {
    if (dirRel !== '') await this.ensureParents(`${dirRel}/${OPAQUE_MARKER}`, name);
    await setXattr(this.abs(dirRel), OPAQUE_XATTR, Buffer.from('y'), this.signal);
    this.opaque.add(dirRel);
  }

  private async mknod(file: string, kind: 'c' | 'b' | 'p', mode: number, major: number, minor: number): Promise<void> {
    const numbers = kind === 'p' ? [] : [String(major), String(minor)];
    await runCommand('/usr/bin/mknod', ['-m', mode.toString(8).padStart(4, '0'), '--', file, kind, ...numbers], { signal: this.signal });
  }

  private async setXattrs(file: string, xattrs: Array<[string, Buffer]>, name: string): Promise<void> {
    for (const [attr, value] of xattrs) {
      try {
        await setXattr(file, attr, value, this.signal);
      } catch (err) {
        if (this.signal?.aborted) throw err;
        const message = (err as Error).message;
        // dockerd ignores both: the file system (or its namespace) does not take such attributes
        if (/Operation not supported|Operation not permitted/.test(message)) continue;
        throw refuse(`entry ${quote(name)}: cannot set its extended attribute ${quote(attr)}: ${message}`, err);
      }
    }
  }

  /** The entry's SCHILY.xattr.* attributes as bytes (from the scanner), checked against tar-stream's text. */
  private xattrsOf(header: TarHeader, name: string): Array<[string, Buffer]> {
    const pax = header.pax;
    if (!pax) return [];
    const raw = this.scanner.xattrsAt(header.byteOffset);
    const xattrs: Array<[string, Buffer]> = [];
    for (const [key, text] of Object.entries(pax)) {
      if (!key.startsWith(XATTR_PAX_PREFIX)) continue;
      const attr = key.slice(XATTR_PAX_PREFIX.length);
      const value = raw?.get(attr);
      if (value === undefined || value.toString('utf8') !== text) throw refuse(`entry ${quote(name)}: cannot read its extended attribute ${quote(attr)}`);
      if (attr === '' || attr.includes('\0')) throw refuse(`entry ${quote(name)} has an extended attribute without a valid name`);
      // the layer's own overlay metadata (opaque, redirect, metacopy...) comes only from whiteout files
      if (attr.startsWith(OVERLAY_XATTR_PREFIX)) continue;
      xattrs.push([attr, value]);
    }
    return xattrs;
  }
}

function metadataOf(header: TarHeader, name: string, xattrs: Array<[string, Buffer]>): Metadata {
  const pax = header.pax ?? {};
  const id = (field: 'uid' | 'gid'): number => {
    const value = pax[field] !== undefined ? Number(pax[field]) : (header[field] ?? 0);
    if (!Number.isInteger(value) || value < 0 || value > MAX_ID) throw refuse(`entry ${quote(name)} has an invalid ${field} (${pax[field] ?? header[field]})`);
    return value;
  };
  const mtime = pax.mtime !== undefined ? Number(pax.mtime) : (header.mtime?.getTime() ?? 0) / 1000;
  if (!Number.isFinite(mtime)) throw refuse(`entry ${quote(name)} has an invalid modification time`);
  // dockerd: the access time is never before the modification time
  const atime = pax.atime !== undefined && Number(pax.atime) > mtime ? Number(pax.atime) : mtime;
  const defaultMode = header.type === 'directory' ? 0o755 : 0o644;
  return { uid: id('uid'), gid: id('gid'), mode: (header.mode ?? defaultMode) & 0o7777, atime, mtime, xattrs };
}

/** dockerd's pkg/directory.Size: every non-directory's size, an inode once. */
/** Synchronous for the same reason as the file writes: one lstat per entry, each cheaper than a thread-pool trip. */
function diskUsage(root: string): number {
  const seen = new Set<number>();
  let total = 0;
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    for (const dirent of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, dirent.name);
      if (dirent.isDirectory()) {
        pending.push(file);
        continue;
      }
      const stats = lstatSync(file);
      if (stats.size === 0 || seen.has(stats.ino)) continue;
      seen.add(stats.ino);
      total += stats.size;
    }
  }
  return total;
}

async function drain(stream: Entry): Promise<void> {
  const chunks = stream[Symbol.asyncIterator]();
  while (!(await chunks.next()).done) {
    // discard
  }
}

function isWhiteout(stats: Stats): boolean {
  return stats.isCharacterDevice() && stats.rdev === 0;
}

function dirnameOf(rel: string): string {
  const dir = path.posix.dirname(rel);
  return dir === '.' ? '' : dir;
}

/** glibc's major() and minor() */
function splitDevice(rdev: number): { major: number; minor: number } {
  const dev = BigInt(rdev);
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return { major: Number(major), minor: Number(minor) };
}

/** `setfattr -h`: on the path itself, a symbolic link included. */
async function setXattr(file: string, attr: string, value: Buffer, signal: AbortSignal | undefined): Promise<void> {
  await runCommand('setfattr', ['-h', '-n', attr, '-v', `0x${value.toString('hex')}`, '--', file], { signal });
}

async function readXattr(file: string, attr: string, signal: AbortSignal | undefined): Promise<Buffer | undefined> {
  // --only-values prints the value's bytes as they are; getfattr exits 1 when the file has no such attribute
  const r = await runCommand('getfattr', ['-h', '--absolute-names', '--only-values', '-n', attr, '--', file], { signal, allowExitCodes: [1] });
  return r.exitCode === 1 ? undefined : r.stdout;
}

/** All extended attributes of a file of a parent layer, but overlayfs' own. */
async function readXattrs(file: string, signal: AbortSignal | undefined): Promise<Array<[string, Buffer]>> {
  const out = await runCommand('getfattr', ['-h', '--absolute-names', '-d', '-m', '-', '-e', 'hex', '--', file], { signal });
  const xattrs: Array<[string, Buffer]> = [];
  for (const line of out.stdout.toString('latin1').split('\n')) {
    const match = /^([^#=][^=]*)=0x([0-9a-f]*)$/.exec(line);
    if (match && !match[1].startsWith(OVERLAY_XATTR_PREFIX)) xattrs.push([match[1], Buffer.from(match[2], 'hex')]);
  }
  return xattrs;
}

function archiveError(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/unexpected end of data/i.test(message)) return refuse('unexpected end of archive', err);
  return refuse(message, err);
}

function refuse(message: string, cause?: unknown): EngineError {
  return invalidParameter(`invalid layer archive: ${message}`, cause);
}

function quote(name: string): string {
  return JSON.stringify(name);
}
