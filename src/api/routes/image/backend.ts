// What the Image routes need from the engine.
import type { Readable } from 'node:stream';
import type { Digest } from '../../../image/digest.js';
import type { DeleteItem, HistoryRow, Image, ImportOptions, PruneOptions } from '../../../image/image-service.js';

export interface ImageBackend {
  list(): Image[];
  get(refOrId: string): Image;
  history(refOrId: string): HistoryRow[];
  tag(refOrId: string, repo: string, tag: string): void;
  remove(refOrId: string, opts: { force: boolean; prune: boolean }): DeleteItem[];
  load(source: Readable, signal?: AbortSignal): Promise<string[]>;
  saveArchive(names: string[], signal?: AbortSignal): Readable;
  /** Checks an import's parameters, and returns the import to run on the root filesystem's tar. */
  prepareImport(opts: ImportOptions): (source: Readable, signal?: AbortSignal) => Promise<Digest>;
  prune(opts: PruneOptions): { items: DeleteItem[]; reclaimedBytes: number };
  usage(): { layersSizeBytes: number; sharedSizeBytes: Map<Digest, number> };
  /** Where an image's layers live, for GraphDriver.Data. */
  layerDirs(image: Image): string[];
}
