// The tar GET /containers/{id}/archive answers, and export's: a file, a link or a directory tree
// walked through a ScopedRoot, as dockerd's archive.TarWithOptions writes it (moby v20.10
// pkg/archive/archive.go): a directory before its entries, names sorted by their bytes, a file met
// again through another hard link as a link entry, sockets left out, times in whole seconds.
// Entry names start with `base` (dockerd's rebase to the name the client asked for). Files are
// opened relative to their directory's descriptor with O_NOFOLLOW|O_NONBLOCK and must still be the
// regular file that was listed, so a container changing its files meanwhile cannot redirect the read.
import { closeSync, constants, fstatSync, openSync, readdirSync, readlinkSync, readSync, type BigIntStats } from 'node:fs';
import { Readable } from 'node:stream';
import { EngineError } from '../../errors.js';
import { displayPath, fsPath, type BytePath } from '../../rootfs/byte-path.js';
import { encodeTarHeader, TAR_BLOCK, tarEnd, tarPadding, type TarEntryHeader } from '../../rootfs/tar-header.js';
import { selfPath, type DirHandle, type Entry, type ScopedRoot } from './scoped-root.js';

const CHUNK_BYTES = 1024 * 1024;

export interface PathArchiveOptions {
  root: ScopedRoot;
  /** what to archive: a directory's own handle (name '') or a name in its directory */
  entry: Entry;
  /** the name entries start with; undefined leaves the top entry out (export: names relative to the root) */
  base: BytePath | undefined;
  /** runs once the archive is complete or abandoned */
  done: () => void;
}

export function pathArchive(opts: PathArchiveOptions): Readable {
  return Readable.from(archiveChunks(opts), { objectMode: false });
}

async function* archiveChunks(opts: PathArchiveOptions): AsyncGenerator<Buffer> {
  try {
    yield* new TarWalk(opts.root, opts.base).entry(opts.entry, '');
    yield tarEnd();
  } finally {
    opts.done();
  }
}

class TarWalk {
  /** the first name of each inode met with more than one link */
  private readonly firstNames = new Map<string, BytePath>();

  constructor(
    private readonly root: ScopedRoot,
    private readonly base: BytePath | undefined,
  ) {}

  *entry(entry: Entry, rel: BytePath): Generator<Buffer> {
    const { stats } = entry;
    if (stats.isSocket()) return;
    const name = this.nameOf(rel);
    const header: TarEntryHeader = { name: name ?? '', type: 'file', mode: Number(stats.mode), uid: Number(stats.uid), gid: Number(stats.gid), size: 0, mtime: seconds(stats) };
    if (stats.isDirectory()) {
      yield* this.directory(entry, rel, header, name !== undefined);
      return;
    }
    if (name === undefined) return;
    if (stats.nlink > 1n) {
      const key = `${stats.dev}:${stats.ino}`;
      const first = this.firstNames.get(key);
      if (first !== undefined) {
        yield encodeTarHeader({ ...header, type: 'link', linkname: first });
        return;
      }
      this.firstNames.set(key, name);
    }
    if (stats.isSymbolicLink()) {
      yield encodeTarHeader({ ...header, type: 'symlink', linkname: readlinkSync(fsPath(entry.hostPath), { encoding: 'buffer' }).toString('latin1') });
    } else if (stats.isFile()) {
      yield* fileEntry(entry, header);
    } else {
      const type = stats.isFIFO() ? 'fifo' : stats.isCharacterDevice() ? 'character-device' : 'block-device';
      yield encodeTarHeader({ ...header, type, ...deviceNumbers(stats.rdev) });
    }
  }

  private *directory(entry: Entry, rel: BytePath, header: TarEntryHeader, withHeader: boolean): Generator<Buffer> {
    const own = entry.name === '';
    const dir: DirHandle = own ? entry.dir : this.root.openDir(entry);
    try {
      if (withHeader) yield encodeTarHeader({ ...header, type: 'directory' });
      const names = dir.opaque ? [] : readdirSync(fsPath(selfPath(dir.fd)), { encoding: 'buffer' }).map((n) => n.toString('latin1'));
      names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (const name of names) {
        const child = this.root.lookup(dir, name);
        // gone meanwhile: the container is running
        if (child !== undefined) yield* this.entry(child, rel === '' ? name : `${rel}/${name}`);
      }
    } finally {
      if (!own) closeSync(dir.fd);
    }
  }

  /** dockerd's names: `base/rel`, the root's `/rel`, `./rel` for a trailing `/.`; undefined for export's top. */
  private nameOf(rel: BytePath): BytePath | undefined {
    if (this.base === undefined) return rel === '' ? undefined : rel;
    if (rel === '') return this.base === '/' ? '' : this.base;
    return this.base === '/' ? `/${rel}` : `${this.base}/${rel}`;
  }
}

function* fileEntry(entry: Entry, header: TarEntryHeader): Generator<Buffer> {
  const fd = openSync(fsPath(entry.hostPath), constants.O_RDONLY | constants.O_NONBLOCK | (entry.follow ? 0 : constants.O_NOFOLLOW));
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (!stats.isFile() || stats.ino !== entry.stats.ino) throw changed(entry);
    const size = Number(stats.size);
    yield encodeTarHeader({ ...header, size });
    let offset = 0;
    while (offset < size) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - offset));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, offset);
      if (bytesRead === 0) throw changed(entry);
      offset += bytesRead;
      yield chunk.subarray(0, bytesRead);
    }
    if (size % TAR_BLOCK !== 0) yield tarPadding(size);
  } finally {
    closeSync(fd);
  }
}

function changed(entry: Entry): EngineError {
  return new EngineError('system', `cannot archive ${JSON.stringify(displayPath(entry.path))}: it changed while it was read`);
}

function seconds(stats: BigIntStats): number {
  return Number(stats.mtimeNs / 1_000_000_000n);
}

/** glibc's major() and minor() */
function deviceNumbers(rdev: bigint): { devmajor: number; devminor: number } {
  const major = ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn);
  const minor = (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn);
  return { devmajor: Number(major), devminor: Number(minor) };
}
