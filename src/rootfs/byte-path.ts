// File names are bytes, and a container may write names that are not UTF-8. Inside src/image/rootfs
// paths are kept as "byte strings": one latin1 character per byte, so every name survives the walk
// of an upper directory, the lookups in the layers and the tar headers exactly; they become Buffers
// for the file system calls and UTF-8 text only where a person reads them (the changes list).
import { lstatSync, type BigIntStats } from 'node:fs';

/** A path as a byte string (one latin1 character per byte). */
export type BytePath = string;

export function toBytePath(text: string): BytePath {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** The path as the file system calls take it. */
export function fsPath(path: BytePath): Buffer {
  return Buffer.from(path, 'latin1');
}

/** The path as text: UTF-8 decoded, invalid bytes shown as U+FFFD. */
export function displayPath(path: BytePath): string {
  return Buffer.from(path, 'latin1').toString('utf8');
}

/** The path as a command-line argument, which Node encodes as UTF-8; undefined when its bytes are not UTF-8. */
export function argumentPath(path: BytePath): string | undefined {
  const text = displayPath(path);
  return toBytePath(text) === path ? text : undefined;
}

export function joinBytePath(dir: BytePath, rel: BytePath): BytePath {
  if (rel === '') return dir;
  return dir.endsWith('/') ? `${dir}${rel}` : `${dir}/${rel}`;
}

/** The parent directories of a relative path, outermost first: 'a/b/c' → ['a', 'a/b']. */
export function parentsOfRel(rel: BytePath): BytePath[] {
  const parents: BytePath[] = [];
  for (let at = rel.indexOf('/'); at !== -1; at = rel.indexOf('/', at + 1)) parents.push(rel.slice(0, at));
  return parents;
}

/** lstat, synchronous: a trip through the thread pool costs more than the call itself. */
export function lstatBytes(path: BytePath): BigIntStats | undefined {
  try {
    return lstatSync(fsPath(path), { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent is a file (or a whiteout) in this layer
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** An overlayfs whiteout: a character device numbered 0/0. */
export function isWhiteout(stats: BigIntStats): boolean {
  return stats.isCharacterDevice() && stats.rdev === 0n;
}
