// The upper directory of an overlay mount read as a tree: what a container changed. Each node has
// its lstat (never followed) and its extended attributes (one getfattr run for the whole tree);
// children are sorted by their bytes, the order in which dockerd's archive walks a directory.
// The file calls are synchronous (each is cheaper than a trip through the thread pool), and the
// walk gives the event loop a turn after each directory.
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { setImmediate as eventLoopTurn } from 'node:timers/promises';
import { fsPath, joinBytePath, lstatBytes, toBytePath, type BytePath } from './byte-path.js';
import { dumpTreeXattrs, type Xattrs } from './xattr-dump.js';

export const OPAQUE_XATTR = 'trusted.overlay.opaque';

export interface UpperNode {
  /** relative to the upper directory, as a byte string; '' for the directory itself */
  rel: BytePath;
  stats: BigIntStats;
  xattrs: Xattrs;
  /** a directory's entries, sorted; undefined for anything else */
  children: UpperNode[] | undefined;
}

export async function readUpperTree(upperDir: string): Promise<UpperNode> {
  const root = toBytePath(upperDir);
  const xattrs = await dumpTreeXattrs(root, '-');
  const noXattrs: Xattrs = new Map();
  const visit = async (rel: BytePath, stats: BigIntStats): Promise<UpperNode> => {
    const abs = joinBytePath(root, rel);
    const node: UpperNode = { rel, stats, xattrs: xattrs.get(abs) ?? noXattrs, children: undefined };
    if (!stats.isDirectory()) return node;
    const names = readdirSync(fsPath(abs), { encoding: 'buffer' })
      .sort(Buffer.compare)
      .map((name) => name.toString('latin1'));
    await eventLoopTurn();
    const children: UpperNode[] = [];
    for (const name of names) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      const childStats = lstatBytes(joinBytePath(root, childRel));
      // gone since it was listed: a running container's temporary file
      if (childStats === undefined) continue;
      children.push(await visit(childRel, childStats));
    }
    node.children = children;
    return node;
  };
  return visit('', lstatSync(fsPath(root), { bigint: true }));
}

/** The nodes below `root` (not the root itself), each directory before its entries. */
export function* descendants(root: UpperNode): Generator<UpperNode> {
  for (const child of root.children ?? []) {
    yield child;
    yield* descendants(child);
  }
}

/** A directory that hides the layers' directory of the same name (trusted.overlay.opaque=y). */
export function isOpaque(node: UpperNode): boolean {
  return node.children !== undefined && node.xattrs.get(OPAQUE_XATTR)?.toString('latin1') === 'y';
}
