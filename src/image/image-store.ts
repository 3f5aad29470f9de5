// berth's stored images: the blobs, the unpacked layers, the records and names, the configs read
// from them, the leases of operations in progress, and garbage collection of what no image needs.
// Persist first, then publish to memory, then answer: records are written after the data they name.
import { closeSync, createReadStream, existsSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { invalidParameter } from '../errors.js';
import type { ContainerUsage } from '../container/container-usage.js';
import type { EventBus } from '../events/event-bus.js';
import type { Staging } from '../store/staging.js';
import { applyLayer } from './archive/layer-applier.js';
import { isCompressed, openLayerTar } from './archive/layer-compression.js';
import { BlobStore } from './blob-store.js';
import { chainIds, isDigest, type Digest } from './digest.js';
import { parseImageConfig, type ImageConfig } from './image-config.js';
import { NoSuchImageError } from './image-errors.js';
import { ImageRecords, type ImageRecord } from './image-records.js';
import { LayerBlobs, type LayerBlob } from './layer-blobs.js';
import { LayerStore, type LayerRecord } from './layer-store.js';
import { familiarString, favorDigest, formatReference, isImageIdLike, parseNormalizedReference, tagReference, withDefaultTag, type ImageReference } from './reference.js';

export interface Image {
  id: Digest;
  config: ImageConfig;
  /** Full references (docker.io/library/busybox:latest, ...@sha256:...). */
  refs: string[];
  /** The same, as Docker shows them: busybox:latest and busybox@sha256:... */
  repoTags: string[];
  repoDigests: string[];
  /** Bytes of all layers together. */
  sizeBytes: number;
  lastTagTime?: string;
  topLayer: Digest | null;
  /** the image it was committed on, while that image exists */
  parent?: Digest;
}

export interface HistoryRow {
  /** Only the newest row names the image, and has its tags. */
  id: Digest | null;
  entry: NonNullable<ImageConfig['history']>[number];
  sizeBytes: number;
  repoTags: string[];
}

/** The blobs and layers one operation in progress made that no image names yet: garbage collection spares them. */
export type Lease = Set<Digest>;

/** Where a layer's bytes come from: a stream, and for staged archives the file itself. */
interface LayerSource {
  open(): Readable;
  localFile?(): string;
}

export class ImageStore {
  private readonly blobs: BlobStore;
  private readonly layers: LayerStore;
  private readonly layerBlobs: LayerBlobs;
  private readonly records: ImageRecords;
  private readonly events: EventBus;
  private readonly configs = new Map<Digest, ImageConfig>();
  private readonly leases = new Set<Lease>();
  private readonly containers: ContainerUsage;

  constructor(opts: { root: string; staging: Staging; events: EventBus; usage: ContainerUsage }) {
    this.events = opts.events;
    this.containers = opts.usage;
    this.blobs = new BlobStore(path.join(opts.root, 'blobs', 'sha256'), opts.staging);
    this.layers = new LayerStore(path.join(opts.root, 'layers'), opts.staging);
    this.layerBlobs = new LayerBlobs(path.join(opts.root, 'layer-blobs'));
    this.records = new ImageRecords(opts.root, opts.staging);
  }

  count(): number {
    return this.records.all().length;
  }

  list(): Image[] {
    return this.records.all().map((r) => this.image(r));
  }

  /** An image by name, full or short ID, or digest reference, as Docker looks them up. */
  get(refOrId: string): Image {
    return this.image(this.records.get(this.resolveId(refOrId)) as ImageRecord);
  }

  resolveId(refOrId: string): Digest {
    if (isDigest(refOrId)) {
      if (this.records.get(refOrId)) return refOrId;
      throw new NoSuchImageError(refOrId);
    }
    let ref: ImageReference | undefined;
    try {
      ref = favorDigest(withDefaultTag(parseNormalizedReference(refOrId)));
    } catch {
      // not a reference: maybe an ID prefix
    }
    if (ref !== undefined) {
      const id = this.records.resolve(formatReference(ref));
      if (id !== undefined) return id;
    }
    if (isImageIdLike(refOrId)) {
      const prefix = refOrId.startsWith('sha256:') ? refOrId.slice(7) : refOrId;
      const found = this.records.all().filter((r) => r.id.slice(7).startsWith(prefix));
      if (found.length === 1) return found[0].id;
      if (found.length > 1) throw invalidParameter(`ambiguous image ID prefix ${refOrId}: it names ${found.length} images`);
    }
    throw new NoSuchImageError(ref !== undefined ? familiarString(ref) : refOrId);
  }

  /** The image a full reference points at, if any. */
  idOf(fullRef: string): Digest | undefined {
    return this.records.resolve(fullRef);
  }

  /** The references pointing at an image, in the order they were made. */
  refsOf(id: Digest): string[] {
    return this.records.refsOf(id);
  }

  /** Every stored reference with its image. */
  references(): Array<[ref: string, id: Digest]> {
    return this.records.all().flatMap((r) => this.records.refsOf(r.id).map((ref): [string, Digest] => [ref, r.id]));
  }

  history(refOrId: string): HistoryRow[] {
    const image = this.get(refOrId);
    const entries = image.config.history ?? [];
    const layerSizes = chainIds(image.config.rootfs.diff_ids).map((c) => this.layers.get(c)?.sizeBytes ?? 0);
    let layer = 0;
    const rows = entries.map((entry) => ({ entry, sizeBytes: entry.empty_layer ? 0 : (layerSizes[layer++] ?? 0) })).reverse();
    // Docker lists newest first: the newest row names the image, each row after it the parent
    // of the one before while there is one (a built image's steps); the rest are <missing>
    let named: Image | undefined = image;
    return rows.map((row) => {
      const here = named;
      named = here?.parent === undefined ? undefined : this.get(here.parent);
      return { ...row, id: here?.id ?? null, repoTags: here?.repoTags ?? [] };
    });
  }

  /** The images committed on `id` (a build's later steps). */
  children(id: Digest): Digest[] {
    return this.records.children(id);
  }

  /** The image's layer directories, topmost first: a container's lower stack. */
  layerDirs(image: Image): string[] {
    return image.topLayer === null ? [] : this.layers.stackDirs(image.topLayer);
  }

  /** Points repo:tag at an image. */
  async tag(refOrId: string, repo: string, tag: string): Promise<void> {
    const id = this.resolveId(refOrId);
    const ref = tagReference(repo, tag);
    await this.name(id, [ref]);
    this.events.publish('image', 'tag', { id, attributes: { name: familiarString(ref) } });
  }

  /** Points the references at an image in one write. */
  async name(id: Digest, refs: ImageReference[]): Promise<void> {
    if (refs.length === 0) return;
    await this.records.setRefs(refs.map((r) => [formatReference(r), id]));
    await this.records.put({ ...(this.records.get(id) as ImageRecord), lastTagTime: new Date().toISOString() });
  }

  async untag(ref: ImageReference): Promise<void> {
    await this.records.removeRef(formatReference(ref));
  }

  /** Drops an image's record and names; its layers go at the next garbage collection. */
  async delete(id: Digest): Promise<void> {
    await this.records.delete(id);
    this.configs.delete(id);
  }

  config(id: Digest): ImageConfig {
    let config = this.configs.get(id);
    if (config === undefined) {
      config = parseImageConfig(this.blobs.readVerified(id));
      this.configs.set(id, config);
    }
    return config;
  }

  /** The config's bytes as stored, verified against the image ID. */
  configBytes(id: Digest): Buffer {
    return this.blobs.readVerified(id);
  }

  /** A blob's size; a pulled layer's tar, kept compressed, has its size in its layer-blob record. */
  blobSizeBytes(digest: Digest): number {
    if (this.blobs.has(digest)) return this.blobs.sizeOf(digest);
    const kept = this.layerBlobs.get(digest);
    if (kept?.tarSizeBytes !== undefined && this.blobs.has(kept.digest)) return kept.tarSizeBytes;
    return this.blobs.sizeOf(digest);
  }

  /** A blob's bytes; a pulled layer's tar is its compressed blob, decompressed as it is read. */
  openBlob(digest: Digest): Readable {
    const kept = this.blobs.has(digest) ? undefined : this.layerBlobs.get(digest);
    if (kept === undefined || !this.blobs.has(kept.digest)) return this.blobs.openRead(digest);
    const out = new PassThrough();
    openLayerTar(this.blobs.openRead(kept.digest)).then(
      (tar) => {
        tar.on('error', (err) => out.destroy(err));
        tar.pipe(out);
      },
      (err: Error) => out.destroy(err),
    );
    return out;
  }

  /**
   * Runs an operation that adds blobs and layers under a lease, then collects what it left unnamed.
   * With `keepOnFailureMs`, what a failed operation had verified is kept that long (a pull's layers,
   * for its retry) before it is collected.
   */
  async withLease<T>(work: (lease: Lease) => Promise<T>, opts: { keepOnFailureMs?: number } = {}): Promise<T> {
    const lease: Lease = new Set();
    this.leases.add(lease);
    let failed = false;
    try {
      return await work(lease);
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      const release = () => {
        this.leases.delete(lease);
        this.collectGarbage();
      };
      if (failed && opts.keepOnFailureMs !== undefined) setTimeout(release, opts.keepOnFailureMs).unref();
      else release();
    }
  }

  /**
   * Unpacks a layer on top of `parent` unless that layer exists already. A new layer's tar is
   * always read from the source and verified against `expected` (the image's diff ID), as dockerd
   * does, even when an equal blob is stored: a tampered archive is refused, not silently accepted.
   * An uncompressed layer already staged on disk is renamed into the store rather than copied.
   */
  async addLayer(lease: Lease, parent: Digest | null, expected: Digest | undefined, source: LayerSource, signal?: AbortSignal): Promise<LayerRecord> {
    if (expected !== undefined) {
      const chainId = parent === null ? expected : (chainIds([parent, expected])[1] as Digest);
      const existing = this.layers.get(chainId);
      if (existing) return existing;
    }
    const staged = source.localFile?.();
    if (expected !== undefined && staged !== undefined && existsSync(staged) && !this.blobs.has(expected) && !isCompressed(readHead(staged))) {
      return this.addStagedLayer(lease, parent, expected, staged, signal);
    }
    const diffId = await this.storeLayerBlob(source, expected, signal);
    lease.add(diffId);
    lease.add(parent === null ? diffId : (chainIds([parent, diffId])[1] as Digest));
    return this.layers.ensure(parent, diffId, (target, lowerDirs) => applyLayer(this.blobs.openRead(diffId), { target, lowerDirs, signal }));
  }

  /**
   * An uncompressed layer staged on disk (a load's), read once: unpacked and hashed in the same
   * pass, then taken into the blob store by a rename if its digest is the one expected.
   */
  private async addStagedLayer(lease: Lease, parent: Digest | null, diffId: Digest, file: string, signal?: AbortSignal): Promise<LayerRecord> {
    const tar = createReadStream(file, { highWaterMark: 1024 * 1024 });
    const { record } = await this.applyVerified(lease, parent, diffId, tar, signal, () => this.blobs.adoptHashed(file, diffId));
    return record;
  }

  /** Whether the image is stored (its record, so its layers too). */
  hasImage(id: Digest): boolean {
    return this.records.get(id) !== undefined;
  }

  /** Whether the layer for `diffId` on top of `parent` is stored. */
  hasLayer(parent: Digest | null, diffId: Digest): LayerRecord | undefined {
    return this.layers.get(parent === null ? diffId : (chainIds([parent, diffId])[1] as Digest));
  }

  /**
   * Unpacks a layer from its tar as the tar arrives (a pull's download), hashing the tar at the
   * same time: it must match `diffId`, or nothing of the layer is kept. The tar itself is not
   * stored: the pull keeps the compressed blob it came in (addLayerBlob), which reads it back.
   */
  addLayerStreaming(lease: Lease, parent: Digest | null, diffId: Digest, tar: Readable, signal?: AbortSignal): Promise<{ record: LayerRecord; tarSizeBytes: number }> {
    return this.applyVerified(lease, parent, diffId, tar, signal);
  }

  /** The layer unpacked from `tar` in one pass that also hashes it; `verified` runs once the hash matches `diffId`, before the layer is recorded. */
  private async applyVerified(lease: Lease, parent: Digest | null, diffId: Digest, tar: Readable, signal?: AbortSignal, verified?: () => Promise<void>): Promise<{ record: LayerRecord; tarSizeBytes: number }> {
    lease.add(diffId);
    lease.add(parent === null ? diffId : (chainIds([parent, diffId])[1] as Digest));
    const hash = createHash('sha256');
    let tarSizeBytes = 0;
    const record = await this.layers.ensure(parent, diffId, async (target, lowerDirs) => {
      const counted = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          tarSizeBytes += chunk.length;
          done(null, chunk);
        },
      });
      tar.on('error', (err) => counted.destroy(err));
      const applied = await applyLayer(tar.pipe(counted), { target, lowerDirs, signal });
      // the applier stops at the archive's end: the padding after it is the tar's too
      for await (const chunk of counted) void chunk;
      const got: Digest = `sha256:${hash.digest('hex')}`;
      if (got !== diffId) throw invalidParameter(`content digest ${got} does not match the expected ${diffId}`);
      await verified?.();
      return applied;
    });
    return { record, tarSizeBytes };
  }

  /** Keeps a layer's compressed blob (already hashed by its writer) under the registry's digest. */
  async addLayerBlob(lease: Lease, diffId: Digest, file: string, blob: LayerBlob): Promise<void> {
    lease.add(blob.digest);
    if (!this.blobs.has(blob.digest)) await this.blobs.adoptHashed(file, blob.digest);
    await this.layerBlobs.put(diffId, blob);
  }

  /** The compressed blob a registry knows the layer by, if one is kept. */
  layerBlob(diffId: Digest): LayerBlob | undefined {
    const blob = this.layerBlobs.get(diffId);
    return blob !== undefined && this.blobs.has(blob.digest) ? blob : undefined;
  }

  /** The blob store's path of a blob (a push reads it as a file). */
  blobPath(digest: Digest): string {
    return this.blobs.path(digest);
  }

  hasBlob(digest: Digest): boolean {
    return this.blobs.has(digest);
  }

  /** Stores an image's config and writes its record: from here on the image exists. A commit names the image it was made on. */
  async commitImage(lease: Lease, id: Digest, configBytes: Buffer, config: ImageConfig, parent?: Digest): Promise<void> {
    lease.add(id);
    await this.blobs.putBytes(configBytes);
    const record = this.records.get(id);
    if (!record || (parent !== undefined && record.parent !== parent)) await this.records.put({ ...record, id, ...(parent !== undefined ? { parent } : {}) });
    this.configs.set(id, config);
  }

  /** Deletes layers and blobs no image, lease or container needs; returns the chain IDs of the layers removed. */
  collectGarbage(): Digest[] {
    const keep = new Set<Digest>([...this.leases].flatMap((lease) => [...lease]));
    for (const top of this.containers.layersInUse()) for (let c: Digest | null = top; c !== null; c = this.layers.get(c)?.parent ?? null) keep.add(c);
    for (const r of this.records.all()) {
      keep.add(r.id);
      const config = this.config(r.id);
      for (const diffId of config.rootfs.diff_ids) keep.add(diffId);
      for (const chainId of chainIds(config.rootfs.diff_ids)) keep.add(chainId);
    }
    // a kept layer keeps its compressed blob; a gone one's record goes
    for (const [diffId, blob] of this.layerBlobs.list()) {
      if (keep.has(diffId)) keep.add(blob.digest);
      else if (!keep.has(blob.digest)) this.layerBlobs.delete(diffId);
    }
    const removed: Digest[] = [];
    // topmost first, so a parent goes after its children
    for (const layer of this.layers.list().sort((a, b) => this.layers.stackDirs(b.chainId).length - this.layers.stackDirs(a.chainId).length)) {
      if (keep.has(layer.chainId)) continue;
      this.layers.remove(layer.chainId);
      removed.push(layer.chainId);
    }
    for (const blob of this.blobs.list()) if (!keep.has(blob)) this.blobs.delete(blob);
    return removed;
  }

  /** Bytes of all layers together. */
  layersSizeBytes(): number {
    return this.layers.list().reduce((sum, l) => sum + l.sizeBytes, 0);
  }

  /** Per image, the bytes of its layers that other images use too. */
  sharedSizes(): Map<Digest, number> {
    const users = new Map<Digest, number>();
    const chains = new Map<Digest, Digest[]>();
    for (const r of this.records.all()) {
      const chain = chainIds(this.config(r.id).rootfs.diff_ids);
      chains.set(r.id, chain);
      for (const c of new Set(chain)) users.set(c, (users.get(c) ?? 0) + 1);
    }
    const sharedSizeBytes = new Map<Digest, number>();
    for (const [id, chain] of chains) {
      const shared = [...new Set(chain)].filter((c) => (users.get(c) ?? 0) > 1);
      sharedSizeBytes.set(id, shared.reduce((sum, c) => sum + (this.layers.get(c)?.sizeBytes ?? 0), 0));
    }
    return sharedSizeBytes;
  }

  private async storeLayerBlob(source: LayerSource, expected: Digest | undefined, signal?: AbortSignal): Promise<Digest> {
    const staged = source.localFile?.();
    if (staged !== undefined) {
      // an earlier image of the same archive took this file already, into the blob it names
      if (!existsSync(staged) && expected !== undefined && this.blobs.has(expected)) return expected;
      if (!isCompressed(readHead(staged))) return (await this.blobs.adoptFile(staged, expected, signal)).digest;
    }
    return (await this.blobs.putStream(await openLayerTar(source.open()), expected, signal)).digest;
  }

  private image(record: ImageRecord): Image {
    const config = this.config(record.id);
    const chain = chainIds(config.rootfs.diff_ids);
    const sizeBytes = chain.reduce((sum, c) => sum + (this.layers.get(c)?.sizeBytes ?? 0), 0);
    const refs = this.records.refsOf(record.id);
    const familiar = (r: string) => familiarString(parseNormalizedReference(r));
    return {
      id: record.id,
      config,
      refs,
      repoTags: refs.filter((r) => !r.includes('@')).map(familiar),
      repoDigests: refs.filter((r) => r.includes('@')).map(familiar),
      sizeBytes,
      lastTagTime: record.lastTagTime,
      topLayer: chain.at(-1) ?? null,
      ...(record.parent !== undefined && this.records.get(record.parent) ? { parent: record.parent } : {}),
    };
  }
}

/** The first bytes of a file, enough to tell its compression. */
function readHead(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    return head.subarray(0, readSync(fd, head, 0, 4, 0));
  } finally {
    closeSync(fd);
  }
}
