// What a container changed, as `docker diff` lists it. dockerd v20.10's overlay2 driver answers
// Changes with its naive differ (moby#37313: the upper-directory walk, archive.OverlayChanges,
// called an opaque directory deleted and missed what it hid), that is archive.ChangesDirs between
// the container's merged view and its image's: a path is
//   - added (1) when the image has nothing there;
//   - modified (0) when both have it and the type and permission bits, owner, group or device
//     number differ, or, for anything but a directory, the modification time (seconds, and
//     nanoseconds unless either is 0) or the size, or the security.capability attribute;
//   - deleted (2) when only the image has it (its contents are not listed);
// and every directory holding a change is modified, unless already listed, the root never.
// Only what the upper directory holds can differ, so the walk covers it alone and compares each
// entry with the layers' merged view (LowerView): a whiteout deletes what the layers show there;
// an opaque directory deletes whatever the layers' directory lists and the upper one does not.
// The list comes sorted by path, component by component (a directory right before its entries);
// dockerd's own order follows a Go map's and varies between calls.
import type { BigIntStats } from 'node:fs';
import { setImmediate as eventLoopTurn } from 'node:timers/promises';
import { displayPath, isWhiteout, parentsOfRel, type BytePath } from './byte-path.js';
import { LowerView } from './lower-view.js';
import { descendants, isOpaque, readUpperTree, type UpperNode } from './upper-tree.js';
import { readXattrs } from './xattr-dump.js';

/** dockerd's archive.ChangeType: 0 modified, 1 added, 2 deleted */
export type ChangeKind = 0 | 1 | 2;

export interface Change {
  /** absolute within the container, UTF-8 (bytes that are not show as U+FFFD) */
  path: string;
  kind: ChangeKind;
}

const MODIFIED: ChangeKind = 0;
const ADDED: ChangeKind = 1;
const DELETED: ChangeKind = 2;
const CAPABILITY_XATTR = 'security.capability';
const S_IFMT = 0o170000n;
const S_IFDIR = 0o040000n;

/** The changes of the upper directory `upperDir` over the layers `lowerDirs` (topmost first). */
export async function rootfsChanges(upperDir: string, lowerDirs: string[]): Promise<Change[]> {
  const upper = await readUpperTree(upperDir);
  const lower = new LowerView(lowerDirs);
  const dirs = [...descendants(upper)].filter((node) => node.children !== undefined).map((node) => node.rel);
  await lower.prefetchOpaque(dirs);

  const changes = new Map<BytePath, ChangeKind>();
  /** entries alike in both by their stat, whose security.capability is compared last, in one getfattr run */
  const capabilityChecks: Array<{ node: UpperNode; lowerFile: BytePath }> = [];

  const addedTree = (node: UpperNode) => {
    if (isWhiteout(node.stats)) return;
    changes.set(node.rel, ADDED);
    for (const child of node.children ?? []) addedTree(child);
  };

  let visited = 0;
  const visit = async (node: UpperNode): Promise<void> => {
    // the lookups are synchronous file calls: let the event loop in now and then
    if (++visited % 256 === 0) await eventLoopTurn();
    const below = await lower.lookup(node.rel);
    if (isWhiteout(node.stats)) {
      if (below) changes.set(node.rel, DELETED);
      return;
    }
    if (below === undefined) return addedTree(node);
    if (statDifferent(below.stats, node.stats)) changes.set(node.rel, MODIFIED);
    else capabilityChecks.push({ node, lowerFile: below.file });
    if (node.children === undefined) return;
    if (!below.stats.isDirectory()) {
      // a directory where the layers have a file: nothing of theirs shows through
      for (const child of node.children) addedTree(child);
      return;
    }
    if (isOpaque(node)) {
      const kept = new Set(node.children.filter((child) => !isWhiteout(child.stats)).map((child) => basename(child.rel)));
      for (const name of await lower.children(node.rel)) if (!kept.has(name)) changes.set(`${node.rel}/${name}`, DELETED);
    }
    for (const child of node.children) await visit(child);
  };
  for (const child of upper.children ?? []) await visit(child);

  if (capabilityChecks.length > 0) {
    const lowerCapabilities = await readXattrs(
      capabilityChecks.map((check) => check.lowerFile),
      '^security\\.capability$',
    );
    for (const { node, lowerFile } of capabilityChecks) {
      const before = lowerCapabilities.get(lowerFile)?.get(CAPABILITY_XATTR);
      const after = node.xattrs.get(CAPABILITY_XATTR);
      if (!sameBytes(before, after)) changes.set(node.rel, MODIFIED);
    }
  }

  for (const rel of [...changes.keys()]) {
    for (const dir of parentsOfRel(rel)) if (!changes.has(dir)) changes.set(dir, MODIFIED);
  }
  return [...changes]
    .sort(([a], [b]) => comparePaths(a, b))
    .map(([rel, kind]) => ({ path: `/${displayPath(rel)}`, kind }));
}

/** dockerd's statDifferent (pkg/archive/changes_unix.go). */
function statDifferent(before: BigIntStats, after: BigIntStats): boolean {
  if (before.mode !== after.mode || before.uid !== after.uid || before.gid !== after.gid || before.rdev !== after.rdev) return true;
  // a directory's size and modification time say nothing (moby#9874)
  if ((before.mode & S_IFMT) === S_IFDIR) return false;
  return !sameTime(before.mtimeNs, after.mtimeNs) || before.size !== after.size;
}

/** dockerd's sameFsTimeSpec: the same second, and the same nanosecond unless either has none. */
function sameTime(a: bigint, b: bigint): boolean {
  const second = 1_000_000_000n;
  const [aSec, aNsec] = [floorDiv(a, second), mod(a, second)];
  const [bSec, bNsec] = [floorDiv(b, second), mod(b, second)];
  return aSec === bSec && (aNsec === bNsec || aNsec === 0n || bNsec === 0n);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b < 0n ? q - 1n : q;
}

function mod(a: bigint, b: bigint): bigint {
  return ((a % b) + b) % b;
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return (a ?? Buffer.alloc(0)).equals(b ?? Buffer.alloc(0));
}

function basename(rel: BytePath): BytePath {
  return rel.slice(rel.lastIndexOf('/') + 1);
}

/** Component by component, bytes compared: 'a' < 'a/b' < 'a-b'. */
function comparePaths(a: BytePath, b: BytePath): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] !== bs[i]) return as[i] < bs[i] ? -1 : 1;
  }
  return as.length - bs.length;
}
