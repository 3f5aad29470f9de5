// Which images exist and what names point at them. One JSON record per image (written last: the
// image's commit point) and one repositories.json for every tag and digest reference, so that
// moving a tag from one image to another is a single atomic write.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { removeTemporaryFiles, writeFileAtomic } from '../store/atomic-file.js';
import type { Staging } from '../store/staging.js';
import { digestHex, isDigest, type Digest } from './digest.js';

export interface ImageRecord {
  id: Digest;
  /** The image it was committed on (a commit's, a build step's), as dockerd's image metadata keeps it. */
  parent?: Digest;
  /** When a name last pointed at it (RFC 3339), for inspect's Metadata.LastTagTime. */
  lastTagTime?: string;
}

interface Repositories {
  /** Full reference (docker.io/library/busybox:latest or ...@sha256:...) → image ID. */
  refs: Record<string, Digest>;
}

export class ImageRecords {
  private readonly imagesDir: string;
  private readonly repositoriesFile: string;
  private readonly staging: Staging;
  private readonly images = new Map<Digest, ImageRecord>();
  private refs = new Map<string, Digest>();

  constructor(root: string, staging: Staging) {
    this.imagesDir = path.join(root, 'images');
    this.repositoriesFile = path.join(root, 'repositories.json');
    this.staging = staging;
    mkdirSync(this.imagesDir, { recursive: true, mode: 0o700 });
    removeTemporaryFiles(root);
    removeTemporaryFiles(this.imagesDir);
    for (const name of readdirSync(this.imagesDir)) {
      if (!name.endsWith('.json')) continue;
      const record = JSON.parse(readFileSync(path.join(this.imagesDir, name), 'utf8')) as ImageRecord;
      if (isDigest(record.id)) this.images.set(record.id, record);
    }
    if (existsSync(this.repositoriesFile)) {
      const repos = JSON.parse(readFileSync(this.repositoriesFile, 'utf8')) as Repositories;
      // a reference to an image whose record is gone (an interrupted delete) is dropped
      this.refs = new Map(Object.entries(repos.refs).filter(([, id]) => this.images.has(id)));
    }
  }

  get(id: Digest): ImageRecord | undefined {
    return this.images.get(id);
  }

  all(): ImageRecord[] {
    return [...this.images.values()];
  }

  /** The images committed on `id`. */
  children(id: Digest): Digest[] {
    return this.all()
      .filter((r) => r.parent === id)
      .map((r) => r.id);
  }

  /** Writes the image's record, then makes it the one in memory; resolves once it is durable. */
  async put(record: ImageRecord): Promise<void> {
    await writeFileAtomic(path.join(this.imagesDir, `${digestHex(record.id)}.json`), JSON.stringify(record));
    this.images.set(record.id, record);
  }

  async delete(id: Digest): Promise<void> {
    const remaining = [...this.refs].filter(([, target]) => target !== id);
    if (remaining.length !== this.refs.size) await this.saveRefs(new Map(remaining));
    this.staging.discard(path.join(this.imagesDir, `${digestHex(id)}.json`));
    this.images.delete(id);
  }

  resolve(ref: string): Digest | undefined {
    return this.refs.get(ref);
  }

  /** The references pointing at an image, in the order they were made. */
  refsOf(id: Digest): string[] {
    return [...this.refs].filter(([, target]) => target === id).map(([ref]) => ref);
  }

  /** Points each reference at its image in one write; returns the images the references left. */
  async setRefs(changes: ReadonlyArray<[ref: string, id: Digest]>): Promise<Digest[]> {
    const next = new Map(this.refs);
    const left: Digest[] = [];
    for (const [ref, id] of changes) {
      const previous = next.get(ref);
      if (previous !== undefined && previous !== id) left.push(previous);
      next.delete(ref); // re-adding keeps refsOf in the order names were given
      next.set(ref, id);
    }
    await this.saveRefs(next);
    return left;
  }

  async removeRef(ref: string): Promise<void> {
    const next = new Map(this.refs);
    next.delete(ref);
    await this.saveRefs(next);
  }

  /**
   * The references in memory at once, so that the next change starts from them; resolves once
   * they are durable (writes of the file land in order, the last one holding every change).
   */
  private async saveRefs(next: Map<string, Digest>): Promise<void> {
    const previous = this.refs;
    this.refs = next;
    try {
      await writeFileAtomic(this.repositoriesFile, JSON.stringify({ refs: Object.fromEntries(next) } satisfies Repositories));
    } catch (err) {
      if (this.refs === next) this.refs = previous;
      throw err;
    }
  }
}
