// Which compressed blob a registry knows a layer by: its digest, size and media type, per diff ID.
// Kept for layers pulled (the registry's own bytes) and for layers pushed (compressed once), so a
// push sends the same bytes every time and its manifest digest stays the same.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { removeTemporaryFiles, writeFileAtomic } from '../store/atomic-file.js';
import { digestHex, type Digest } from './digest.js';

export interface LayerBlob {
  digest: Digest;
  sizeBytes: number;
  mediaType: string;
  /** the layer's tar, uncompressed: for a pulled layer, whose tar is not stored apart */
  tarSizeBytes?: number;
}

export class LayerBlobs {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    removeTemporaryFiles(dir);
  }

  get(diffId: Digest): LayerBlob | undefined {
    const file = this.fileOf(diffId);
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LayerBlob) : undefined;
  }

  async put(diffId: Digest, blob: LayerBlob): Promise<void> {
    await writeFileAtomic(this.fileOf(diffId), JSON.stringify(blob));
  }

  /** Every diff ID with a record, for garbage collection. */
  list(): Array<[Digest, LayerBlob]> {
    return readdirSync(this.dir)
      .filter((n) => /^[0-9a-f]{64}\.json$/.test(n))
      .map((n): [Digest, LayerBlob] => [`sha256:${n.slice(0, 64)}`, JSON.parse(readFileSync(path.join(this.dir, n), 'utf8')) as LayerBlob]);
  }

  delete(diffId: Digest): void {
    rmSync(this.fileOf(diffId), { force: true });
  }

  private fileOf(diffId: Digest): string {
    return path.join(this.dir, `${digestHex(diffId)}.json`);
  }
}
