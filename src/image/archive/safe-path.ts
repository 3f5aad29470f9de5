// Paths from an archive, made safe to join to an extraction root. Names are cleaned as dockerd's
// archive.Unpack does (filepath.Clean, then joined to the root): a leading `/` or `./` is dropped,
// `..` at the top of a rooted name stays at the root, and a relative name that climbs out of the
// root is refused. Looking a path up never follows a symbolic link in any of its components.
import { lstatSync, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * The archive name `name` as a path relative to the root ('' for the root itself, no leading or
 * trailing slash, no `.` or `..` components), or undefined when it leaves the root or cannot be a path.
 */
export function cleanArchivePath(name: string): string | undefined {
  if (name.includes('\0')) return undefined;
  const rooted = name.startsWith('/');
  // normalize keeps a leading '..' for relative names and drops it for rooted ones, as Go's Clean
  const clean = path.posix.normalize(rooted ? name : `./${name}`).replace(/^\/+/, '').replace(/\/+$/, '');
  if (clean === '..' || clean.startsWith('../')) return undefined;
  return clean === '.' ? '' : clean;
}

/** The parent directories of a cleaned relative path, outermost first: 'a/b/c' → ['a', 'a/b']. */
export function parentsOf(rel: string): string[] {
  const parts = rel.split('/');
  const parents: string[] = [];
  for (let i = 1; i < parts.length; i++) parents.push(parts.slice(0, i).join('/'));
  return parents;
}

export type NoFollowLookup =
  | { found: true; stats: Stats }
  | { found: false; blockedAt?: undefined }
  /** a parent component exists but is not a directory (a symbolic link counts as not a directory) */
  | { found: false; blockedAt: string; parentStats: Stats };

/**
 * lstat of `root/rel` where every parent component must be a real directory: a symbolic link in a
 * parent is never followed but reported as blocking, as is a file where a directory should be.
 */
export async function lstatNoFollow(root: string, rel: string): Promise<NoFollowLookup> {
  for (const parent of parentsOf(rel)) {
    const stats = lstatOrUndefined(path.join(root, parent));
    if (stats === undefined) return { found: false };
    if (!stats.isDirectory()) return { found: false, blockedAt: parent, parentStats: stats };
  }
  const stats = lstatOrUndefined(path.join(root, rel));
  return stats === undefined ? { found: false } : { found: true, stats };
}

/** Synchronous: an lstat takes less time than a trip through the thread pool, and layers have thousands. */
export function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
