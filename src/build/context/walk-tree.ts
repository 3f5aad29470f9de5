// Go's filepath.Walk over a directory tree, as the classic builder walks its sources: the start
// first, then each directory's entries in the byte order of their names, depth first, symbolic
// links listed but never followed.
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';

export interface WalkEntry {
  /** relative to the tree's root, '.' for the root */
  rel: string;
  stats: Stats;
}

/** The entries from `startRel` (relative to `root`) down; nothing when the start does not exist. */
export function* walkTree(root: string, startRel: string): Generator<WalkEntry> {
  let stats: Stats;
  try {
    stats = lstatSync(path.join(root, startRel));
  } catch {
    return;
  }
  yield { rel: startRel, stats };
  if (!stats.isDirectory()) return;
  let names: string[];
  try {
    names = readdirSync(path.join(root, startRel));
  } catch {
    return;
  }
  names.sort(byteOrder);
  for (const name of names) yield* walkTree(root, startRel === '.' ? name : `${startRel}/${name}`);
}

/** Go's string order: by UTF-8 bytes. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
