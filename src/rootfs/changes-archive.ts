// A container's changes as a layer tar: its upper directory archived as dockerd's overlay2 driver
// does for a commit (archive.TarWithOptions with the overlay whiteout converter, moby v20.10.27
// pkg/archive/archive.go and archive_linux.go):
//   - entries in walk order (a directory before its entries, names sorted by their bytes), the
//     upper directory itself left out;
//   - a whiteout (a 0/0 character device) becomes an empty regular file `.wh.NAME`, mode 0600,
//     with the whiteout's owner and time; an opaque directory is followed by `DIR/.wh..wh..opq`
//     with the directory's owner and permission bits (not the sticky bit) and no time;
//   - a file met again through another hard link becomes a link entry to the first name;
//   - modification times in whole seconds, no access or change times, sockets skipped;
//   - extended attributes as SCHILY.xattr.* records, overlayfs' own (trusted.overlay.*) left out.
//     dockerd v20.10 keeps security.capability only; berth keeps them all, as containerd does.
// applyLayer over the same lower layers then shows what the container showed.
import { closeSync, constants, openSync, readlinkSync, readSync, type BigIntStats } from 'node:fs';
import { Readable } from 'node:stream';
import { EngineError } from '../errors.js';
import { displayPath, fsPath, isWhiteout, joinBytePath, toBytePath, type BytePath } from './byte-path.js';
import { encodeTarHeader, TAR_BLOCK, tarEnd, tarPadding, type TarEntryHeader } from './tar-header.js';
import { descendants, isOpaque, readUpperTree, type UpperNode } from './upper-tree.js';

const WHITEOUT_PREFIX = '.wh.';
const OPAQUE_MARKER = '.wh..wh..opq';
const OVERLAY_XATTR_PREFIX = 'trusted.overlay.';
const CHUNK_BYTES = 256 * 1024;

/** The tar of `upperDir`'s changes, produced as it is read. */
export function changesArchive(upperDir: string): Readable {
  return Readable.from(changesArchiveChunks(upperDir), { objectMode: false });
}

async function* changesArchiveChunks(upperDir: string): AsyncGenerator<Buffer> {
  const root = toBytePath(upperDir);
  const tree = await readUpperTree(upperDir);
  /** the first name of each inode met with more than one link */
  const firstNames = new Map<bigint, BytePath>();
  for (const node of descendants(tree)) {
    const { stats, rel } = node;
    if (stats.isSocket()) continue;
    if (isWhiteout(stats)) {
      yield encodeTarHeader({ ...owner(stats), name: whiteoutName(rel), type: 'file', mode: 0o600, size: 0 });
      continue;
    }
    const header: TarEntryHeader = { ...owner(stats), name: rel, type: 'file', mode: Number(stats.mode), size: 0, xattrs: exportedXattrs(node) };
    if (!stats.isDirectory() && stats.nlink > 1n) {
      const first = firstNames.get(stats.ino);
      if (first !== undefined) {
        yield encodeTarHeader({ ...header, type: 'link', linkname: first });
        continue;
      }
      firstNames.set(stats.ino, rel);
    }
    if (stats.isDirectory()) {
      yield encodeTarHeader({ ...header, type: 'directory' });
      if (isOpaque(node)) {
        // dockerd gives the marker no time
        yield encodeTarHeader({ ...owner(stats), mtime: 0, name: `${rel}/${OPAQUE_MARKER}`, type: 'file', mode: Number(stats.mode) & 0o777, size: 0 });
      }
    } else if (stats.isSymbolicLink()) {
      const target = readlinkSync(fsPath(joinBytePath(root, rel)), { encoding: 'buffer' }).toString('latin1');
      yield encodeTarHeader({ ...header, type: 'symlink', linkname: target });
    } else if (stats.isFile()) {
      yield encodeTarHeader({ ...header, size: Number(stats.size) });
      yield* fileData(joinBytePath(root, rel), Number(stats.size));
    } else {
      const type = stats.isFIFO() ? 'fifo' : stats.isCharacterDevice() ? 'character-device' : 'block-device';
      yield encodeTarHeader({ ...header, type, ...deviceNumbers(stats.rdev) });
    }
  }
  yield tarEnd();
}

/**
 * Exactly `size` bytes of the file, then the padding; a file that shrank meanwhile is an error, as
 * in dockerd. Reads are synchronous (cheaper than the thread pool for the many small files of a
 * layer); the consumer's pace and the event loop come in between chunks.
 */
function* fileData(file: BytePath, size: number): Generator<Buffer> {
  const fd = openSync(fsPath(file), constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    let left = size;
    while (left > 0) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, left));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, size - left);
      if (bytesRead === 0) throw new EngineError('system', `cannot archive ${JSON.stringify(displayPath(file))}: it changed while it was read`);
      left -= bytesRead;
      yield chunk.subarray(0, bytesRead);
    }
  } finally {
    closeSync(fd);
  }
  if (size % TAR_BLOCK !== 0) yield tarPadding(size);
}

function owner(stats: BigIntStats): Pick<TarEntryHeader, 'uid' | 'gid' | 'mtime'> {
  return { uid: Number(stats.uid), gid: Number(stats.gid), mtime: Number(floorSeconds(stats.mtimeNs)) };
}

function exportedXattrs(node: UpperNode): Array<[string, Buffer]> {
  return [...node.xattrs].filter(([name]) => !name.startsWith(OVERLAY_XATTR_PREFIX));
}

function whiteoutName(rel: BytePath): BytePath {
  const at = rel.lastIndexOf('/');
  return `${rel.slice(0, at + 1)}${WHITEOUT_PREFIX}${rel.slice(at + 1)}`;
}

function floorSeconds(ns: bigint): bigint {
  const second = 1_000_000_000n;
  return ns >= 0n || ns % second === 0n ? ns / second : ns / second - 1n;
}

/** glibc's major() and minor() */
function deviceNumbers(rdev: bigint): { devmajor: number; devminor: number } {
  const major = ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn);
  const minor = (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn);
  return { devmajor: Number(major), devminor: Number(minor) };
}
