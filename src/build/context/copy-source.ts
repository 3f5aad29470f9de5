// Where COPY and ADD take files from, with the checksums the build cache keys on, as dockerd's
// builder.Source: the build context (checksums of the archive's entries, taken as it was
// extracted; a git checkout's, as of the archive dockerd would make of it), or a tree hashed file
// by file when asked (an image's root for COPY --from, a download for ADD <url>). A path is hashed
// as what it resolves to (a link as its target), and a path with no checksum hashes as its own
// name, dockerd's fallback (a directory the archive only implied, a dangling link).
//
// Left out: the security.capability attribute, which dockerd adds to a file's header (Node has no
// xattr call, and one getfattr per file is too dear for a key that only needs to change when a file
// does).
import { constants, lstatSync, readlinkSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { EngineError } from '../../errors.js';
import { followSymlinkInScope } from './scoped-path.js';
import { tarsumHash, type TarsumHeader } from './tarsum.js';
import { goClean } from './go-path.js';
import { walkTree } from './walk-tree.js';

export class CopySource {
  /** checksums by resolved relative path: the archive's, or those worked out so far */
  private readonly sums: Map<string, string>;
  /** hashed file by file when asked, rather than from an archive */
  private readonly lazy: boolean;

  /**
   * `root`: the tree's directory on the host. `sums`: the checksums of an archive's entries by clean
   * relative path ('.' for the root); without them the tree is hashed lazily.
   */
  constructor(
    readonly root: string,
    sums?: ReadonlyMap<string, string>,
  ) {
    this.lazy = sums === undefined;
    this.sums = new Map(sums);
  }

  /** A tree as dockerd's archive.Tar would send it (a git checkout): every entry hashed now. */
  static async ofTree(root: string): Promise<CopySource> {
    const sums = new Map<string, string>();
    const firstNames = new Map<string, string>();
    for (const { rel, stats } of walkTree(root, '.')) {
      if (rel === '.' || stats.isSocket()) continue;
      let link: string | undefined;
      if (!stats.isDirectory() && stats.nlink > 1) {
        const inode = `${stats.dev}:${stats.ino}`;
        link = firstNames.get(inode);
        if (link === undefined) firstNames.set(inode, rel);
      }
      sums.set(rel, await fileSum(root, rel, stats, link));
    }
    return new CopySource(root, sums);
  }

  /** dockerd's Source.Hash: the checksum of what `p` (relative to the root) resolves to. */
  async hash(p: string): Promise<string> {
    const rel = followSymlinkInScope(this.root, p);
    if (rel === undefined) throw new EngineError('system', `forbidden path outside the build context: ${p} (${goClean(`/${p}`).slice(1)})`);
    const known = this.sums.get(rel);
    if (known !== undefined) return known;
    if (!this.lazy) return p;
    let stats: Stats;
    try {
      stats = lstatSync(path.join(this.root, rel));
    } catch {
      return rel;
    }
    const sum = await fileSum(this.root, rel, stats, undefined).catch((err: Error) => {
      throw new EngineError('system', `failed to create hash for ${rel}: ${err.message}`, { cause: err });
    });
    this.sums.set(rel, sum);
    return sum;
  }
}

/**
 * The checksum of one file of the tree with the header dockerd's FileInfoHeader makes for it (its
 * name relative to the tree, `/` after a directory's; st_mode as it is, type bits included), or,
 * given `link`, as a hard link to that earlier name.
 */
async function fileSum(root: string, rel: string, stats: Stats, link: string | undefined): Promise<string> {
  if (stats.isSocket()) throw new Error('archive/tar: sockets not supported');
  const file = path.join(root, rel);
  const header: TarsumHeader = {
    name: stats.isDirectory() ? `${rel}/` : rel,
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.isFile() && link === undefined ? stats.size : 0,
    typeflag: link !== undefined ? '1' : typeFlag(stats),
    linkname: link ?? (stats.isSymbolicLink() ? readlinkSync(file) : ''),
    // from st_rdev, which is 0 but for devices
    ...deviceNumbers(BigInt(stats.rdev)),
    xattrs: [],
  };
  const hash = tarsumHash(header);
  if (header.typeflag === '0' && stats.size > 0) {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      for await (const chunk of handle.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) hash.update(chunk);
    } finally {
      await handle.close();
    }
  }
  return hash.digest('hex');
}

function typeFlag(stats: Stats): string {
  if (stats.isFile()) return '0';
  if (stats.isSymbolicLink()) return '2';
  if (stats.isCharacterDevice()) return '3';
  if (stats.isBlockDevice()) return '4';
  if (stats.isDirectory()) return '5';
  return '6';
}

/** glibc's major() and minor() */
function deviceNumbers(rdev: bigint): { devmajor: number; devminor: number } {
  return { devmajor: Number(((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn)), devminor: Number((rdev & 0xffn) | ((rdev >> 12n) & ~0xffn)) };
}
