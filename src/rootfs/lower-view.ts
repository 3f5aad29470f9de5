// The merged view of a read-only layer stack, as overlayfs builds it, read from the layer
// directories without mounting them. A directory's "stack" is the list of layers in which it is
// a directory that the merge reaches: the root's is every layer; a child's is found by looking
// the name up in each layer of its parent's stack, topmost first: a missing name goes on to the
// next layer, a whiteout or a non-directory ends the search, and so does an opaque directory
// after it is taken. The first entry found is what the merged view shows.
import { readdirSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { fsPath, isWhiteout, joinBytePath, lstatBytes, toBytePath, type BytePath } from './byte-path.js';
import { OPAQUE_XATTR } from './upper-tree.js';
import { readXattrs } from './xattr-dump.js';

export interface LowerEntry {
  /** the file in its layer, as a byte path */
  file: BytePath;
  stats: BigIntStats;
}

const OPAQUE_PATTERN = '^trusted\\.overlay\\.opaque$';

export class LowerView {
  private readonly layers: BytePath[];
  private readonly stacks = new Map<BytePath, Promise<BytePath[]>>();
  private readonly stats = new Map<BytePath, BigIntStats | null>();
  private readonly opaque = new Map<BytePath, boolean>();

  /** `layerDirs`: the layers' directories, topmost first */
  constructor(layerDirs: string[]) {
    this.layers = layerDirs.map((dir) => toBytePath(path.resolve(dir)));
  }

  /** What the merged view shows at `rel` (a byte path relative to the root, not ''), or undefined. */
  async lookup(rel: BytePath): Promise<LowerEntry | undefined> {
    for (const layer of await this.stack(parentOf(rel))) {
      const file = joinBytePath(layer, rel);
      const stats = this.lstat(file);
      if (stats === undefined) continue;
      return isWhiteout(stats) ? undefined : { file, stats };
    }
    return undefined;
  }

  /** The names the merged directory at `rel` lists ('' for the root); none when it is not a directory. */
  async children(rel: BytePath): Promise<BytePath[]> {
    const seen = new Map<BytePath, boolean>();
    for (const layer of await this.stack(rel)) {
      const entries = readdirSync(fsPath(joinBytePath(layer, rel)), { encoding: 'buffer', withFileTypes: true });
      for (const entry of entries) {
        const name = entry.name.toString('latin1');
        if (seen.has(name)) continue;
        if (!entry.isCharacterDevice()) {
          seen.set(name, true);
          continue;
        }
        const stats = this.lstat(joinBytePath(layer, rel === '' ? name : `${rel}/${name}`));
        if (stats !== undefined) seen.set(name, !isWhiteout(stats));
      }
    }
    return [...seen].filter(([, visible]) => visible).map(([name]) => name);
  }

  /**
   * Reads the opaque flags of the layers' directories at `rels` with one getfattr run, rather than
   * one run per directory when the lookups reach them.
   */
  async prefetchOpaque(rels: Iterable<BytePath>): Promise<void> {
    const dirs: BytePath[] = [];
    for (const rel of rels) {
      for (const layer of this.layers) {
        const dir = joinBytePath(layer, rel);
        if (this.opaque.has(dir)) continue;
        const stats = this.lstat(dir);
        if (stats?.isDirectory()) {
          dirs.push(dir);
          this.opaque.set(dir, false);
        }
      }
    }
    for (const [dir, xattrs] of await readXattrs(dirs, OPAQUE_PATTERN)) this.opaque.set(dir, isOpaqueValue(xattrs.get(OPAQUE_XATTR)));
  }

  private stack(rel: BytePath): Promise<BytePath[]> {
    let stack = this.stacks.get(rel);
    if (stack === undefined) {
      stack = rel === '' ? Promise.resolve(this.layers) : this.childStack(rel);
      this.stacks.set(rel, stack);
    }
    return stack;
  }

  private async childStack(rel: BytePath): Promise<BytePath[]> {
    const stack: BytePath[] = [];
    for (const layer of await this.stack(parentOf(rel))) {
      const dir = joinBytePath(layer, rel);
      const stats = this.lstat(dir);
      if (stats === undefined) continue;
      if (!stats.isDirectory()) break;
      stack.push(layer);
      if (await this.isOpaque(dir)) break;
    }
    return stack;
  }

  private lstat(file: BytePath): BigIntStats | undefined {
    let stats = this.stats.get(file);
    if (stats === undefined) {
      stats = lstatBytes(file) ?? null;
      this.stats.set(file, stats);
    }
    return stats ?? undefined;
  }

  private async isOpaque(dir: BytePath): Promise<boolean> {
    let opaque = this.opaque.get(dir);
    if (opaque === undefined) {
      opaque = isOpaqueValue((await readXattrs([dir], OPAQUE_PATTERN)).get(dir)?.get(OPAQUE_XATTR));
      this.opaque.set(dir, opaque);
    }
    return opaque;
  }
}

function isOpaqueValue(value: Buffer | undefined): boolean {
  return value?.toString('latin1') === 'y';
}

function parentOf(rel: BytePath): BytePath {
  const at = rel.lastIndexOf('/');
  return at === -1 ? '' : rel.slice(0, at);
}
