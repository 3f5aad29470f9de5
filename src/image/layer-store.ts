// Unpacked layers by chain ID, each a directory overlayfs can stack as a lower layer. A layer is
// built in staging and becomes real with one rename of its folder; it is kept while any image uses it.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import type { Staging } from '../store/staging.js';
import { chainIds, digestHex, type Digest } from './digest.js';

export interface LayerRecord {
  chainId: Digest;
  diffId: Digest;
  parent: Digest | null;
  /** Bytes of regular files in this layer alone. */
  sizeBytes: number;
}

/** Fills `target` from a layer tar; `lowerDirs` are the parent layers' directories, topmost first. */
export type LayerWriter = (target: string, lowerDirs: string[]) => Promise<{ sizeBytes: number }>;

export class LayerStore {
  private readonly root: string;
  private readonly staging: Staging;
  private readonly records = new Map<Digest, LayerRecord>();
  private readonly building = new Map<Digest, Promise<LayerRecord>>();

  constructor(root: string, staging: Staging) {
    this.root = root;
    this.staging = staging;
    mkdirSync(root, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(root)) {
      const file = path.join(root, name, 'layer.json');
      if (existsSync(file)) {
        const record = JSON.parse(readFileSync(file, 'utf8')) as LayerRecord;
        this.records.set(record.chainId, record);
      }
    }
  }

  get(chainId: Digest): LayerRecord | undefined {
    return this.records.get(chainId);
  }

  list(): LayerRecord[] {
    return [...this.records.values()];
  }

  /** The directory holding the layer's files. */
  diffDir(chainId: Digest): string {
    return path.join(this.root, digestHex(chainId), 'diff');
  }

  /** The layer's directory and its ancestors', topmost first: overlayfs's lowerdir order. */
  stackDirs(chainId: Digest): string[] {
    const dirs: string[] = [];
    for (let id: Digest | null = chainId; id !== null; id = this.records.get(id)?.parent ?? null) dirs.push(this.diffDir(id));
    return dirs;
  }

  /** The layer for `diffId` on top of `parent`, built with `write` unless it already exists. */
  ensure(parent: Digest | null, diffId: Digest, write: LayerWriter): Promise<LayerRecord> {
    const chainId = parent === null ? diffId : (chainIds([parent, diffId])[1] as Digest);
    const existing = this.records.get(chainId);
    if (existing) return Promise.resolve(existing);
    let pending = this.building.get(chainId);
    if (pending === undefined) {
      pending = this.build(chainId, parent, diffId, write).finally(() => this.building.delete(chainId));
      this.building.set(chainId, pending);
    }
    return pending;
  }

  /** Deletes a layer no image uses any more. */
  remove(chainId: Digest): void {
    this.records.delete(chainId);
    this.staging.discard(path.join(this.root, digestHex(chainId)));
  }

  private async build(chainId: Digest, parent: Digest | null, diffId: Digest, write: LayerWriter): Promise<LayerRecord> {
    const stage = this.staging.newDir('layer');
    try {
      const diff = path.join(stage, 'diff');
      mkdirSync(diff, { mode: 0o755 });
      const { sizeBytes } = await write(diff, parent === null ? [] : this.stackDirs(parent));
      const record: LayerRecord = { chainId, diffId, parent, sizeBytes };
      await writeFileAtomic(path.join(stage, 'layer.json'), JSON.stringify(record));
      renameSync(stage, path.join(this.root, digestHex(chainId)));
      this.records.set(chainId, record);
      return record;
    } catch (err) {
      rmSync(stage, { recursive: true, force: true });
      throw err;
    }
  }
}
