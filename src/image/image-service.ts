// berth's images: lookup, inspection, tags, deletion, and loading and saving Docker's archives.
// Persist first, then publish to memory, then answer: records are written after the data they name.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { conflict, invalidParameter } from '../errors.js';
import type { ContainerUsage } from '../container/container-usage.js';
import type { EventBus } from '../events/event-bus.js';
import type { Staging } from '../store/staging.js';
import { applyLayer } from './archive/layer-applier.js';
import { StagedArchive } from './archive/staged-archive.js';
import { BlobStore } from './blob-store.js';
import { chainIds, isDigest, sha256Digest, type Digest } from './digest.js';
import { parseImageConfig, type ImageConfig } from './image-config.js';
import { NoSuchImageError } from './image-errors.js';
import { ImageRecords, type ImageRecord } from './image-records.js';
import { LayerStore } from './layer-store.js';
import { familiarString, formatReference, isImageIdLike, parseNormalizedReference, validateTag, withDefaultTag, type ImageReference } from './reference.js';
import { isCompressed, openLayerTar } from './archive/layer-compression.js';
import { writeSaveArchive } from './archive/save-archive.js';
import { applyChanges, parseChanges } from './config-changes.js';
import { parsePlatform } from './platform.js';
import { BERTH_VERSION } from '../version.js';

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
}

export interface HistoryRow {
  /** Only the newest row names the image, and has its tags. */
  id: Digest | null;
  entry: NonNullable<ImageConfig['history']>[number];
  sizeBytes: number;
  repoTags: string[];
}

export interface ImportOptions {
  /** Where the root filesystem came from: "-" for the request body, or a URL. */
  sourceName: string;
  repo: string;
  tag: string;
  message: string;
  changes: string[];
  /** os[/arch[/variant]]; empty for the daemon's own. */
  platform: string;
}

export interface PruneOptions {
  /** Only images without a name (the default), or every unused one. */
  danglingOnly: boolean;
  /** Only images created before this time. */
  untilMs?: number;
  /** Only images whose labels match. */
  labels?: (labels: Readonly<Record<string, string>>) => boolean;
}

export interface DeleteItem {
  untagged?: string;
  deleted?: string;
}

export class ImageService {
  private readonly blobs: BlobStore;
  private readonly layers: LayerStore;
  private readonly records: ImageRecords;
  private readonly staging: Staging;
  private readonly events: EventBus;
  private readonly configs = new Map<Digest, ImageConfig>();
  /** Per operation in progress, the blobs and layers it made that no image names yet: garbage collection spares them. */
  private readonly leases = new Set<Set<Digest>>();
  private readonly containers: ContainerUsage;

  constructor(opts: { root: string; staging: Staging; events: EventBus; usage: ContainerUsage }) {
    this.staging = opts.staging;
    this.events = opts.events;
    this.containers = opts.usage;
    this.blobs = new BlobStore(path.join(opts.root, 'blobs', 'sha256'), opts.staging);
    this.layers = new LayerStore(path.join(opts.root, 'layers'), opts.staging);
    this.records = new ImageRecords(opts.root, opts.staging);
  }

  /** A layer's directory and its parents', topmost first: a container's lower stack. */
  layerStackDirs(chainId: Digest): string[] {
    return this.layers.stackDirs(chainId);
  }

  /** Removes what an interrupted operation left: layers and blobs no image uses. */
  recover(): void {
    this.collectGarbage();
  }

  count(): number {
    return this.records.all().length;
  }

  list(): Image[] {
    return this.records.all().map((r) => this.image(r));
  }

  /** Disk usage: all layers together, and per image the bytes of its layers other images use too. */
  usage(): { layersSizeBytes: number; sharedSizeBytes: Map<Digest, number> } {
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
    const layersSizeBytes = this.layers.list().reduce((sum, l) => sum + l.sizeBytes, 0);
    return { layersSizeBytes, sharedSizeBytes };
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
      ref = withDefaultTag(parseNormalizedReference(refOrId));
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

  history(refOrId: string): HistoryRow[] {
    const image = this.get(refOrId);
    const entries = image.config.history ?? [];
    const layerSizes = chainIds(image.config.rootfs.diff_ids).map((c) => this.layers.get(c)?.sizeBytes ?? 0);
    // Docker lists newest first; only the newest entry carries the image ID and tags
    let layer = 0;
    const rows = entries.map((entry) => ({ entry, sizeBytes: entry.empty_layer ? 0 : (layerSizes[layer++] ?? 0) }));
    return rows.reverse().map((row, i) => ({ ...row, id: i === 0 ? image.id : null, repoTags: i === 0 ? image.repoTags : [] }));
  }

  layerDirs(image: Image): string[] {
    return image.topLayer === null ? [] : this.layers.stackDirs(image.topLayer);
  }

  /** Points repo:tag at an image. */
  tag(refOrId: string, repo: string, tag: string): void {
    const id = this.resolveId(refOrId);
    if (tag !== '') validateTag(tag);
    const parsed = parseNormalizedReference(repo);
    if (parsed.tag !== undefined || parsed.digest !== undefined) {
      if (tag !== '' || parsed.digest !== undefined) throw invalidParameter('refusing to create an ambiguous tag using digest algorithm as name');
    }
    const ref = withDefaultTag({ ...parsed, tag: parsed.tag ?? (tag || undefined) });
    this.records.setRefs([[formatReference(ref), id]]);
    this.touch(id);
    this.events.publish('image', 'tag', { id, attributes: { name: familiarString(ref) } });
  }

  /** DELETE /images/{name}: untags a reference, and deletes the image when nothing names it any more. */
  remove(refOrId: string, opts: { force: boolean; prune: boolean }): DeleteItem[] {
    const id = this.resolveId(refOrId);
    const items: DeleteItem[] = [];
    const refs = this.records.refsOf(id);
    const byId = isIdReference(refOrId, id);
    const usedBy = this.containers.imageUsers(id);
    if (!byId) {
      const ref = withDefaultTag(parseNormalizedReference(refOrId));
      const user = usedBy.active[0] ?? usedBy.inactive[0];
      if (refs.length === 1 && user !== undefined && (!opts.force || usedBy.active.length > 0)) {
        throw conflict(
          `conflict: unable to remove repository reference "${refOrId}" (must force) - container ${user.slice(0, 12)} is using its referenced image ${shortId(id)}`,
        );
      }
      this.records.removeRef(formatReference(ref));
      items.push({ untagged: familiarString(ref) });
      this.events.publish('image', 'untag', { id, attributes: { name: id } });
      if (this.records.refsOf(id).length > 0) return items;
    } else if (usedBy.active.length > 0) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (cannot be forced) - image is being used by running container ${usedBy.active[0].slice(0, 12)}`);
    } else if (usedBy.inactive.length > 0 && !opts.force) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (must be forced) - image is being used by stopped container ${usedBy.inactive[0].slice(0, 12)}`);
    } else if (refs.length > 1 && !opts.force && new Set(refs.map(repositoryOf)).size > 1) {
      throw conflict(`conflict: unable to delete ${shortId(id)} (must be forced) - image is referenced in multiple repositories`);
    } else {
      items.push(...this.untagAll(id, refs));
    }
    items.push(...this.deleteImage(id, opts.prune));
    return items;
  }

  /**
   * Checks an import's parameters before any byte is read or sent, and returns the work to do:
   * a bad name, tag, change or platform is refused with a status code, not in-band.
   */
  prepareImport(opts: ImportOptions): (source: Readable, signal?: AbortSignal) => Promise<Digest> {
    const ref = opts.repo === '' ? undefined : this.importReference(opts.repo, opts.tag);
    const changes = parseChanges(opts.changes);
    const platform = parsePlatform(opts.platform);
    return async (source, signal) => {
      const lease = new Set<Digest>();
      this.leases.add(lease);
      try {
        const layer = await this.addLayer(lease, null, undefined, { open: () => source }, signal);
        const created = new Date().toISOString();
        const comment = opts.message || `Imported from ${opts.sourceName}`;
        const config = {
          architecture: platform.architecture,
          ...(platform.variant ? { variant: platform.variant } : {}),
          comment,
          config: applyChanges({}, changes),
          container_config: {},
          created,
          docker_version: `berth ${BERTH_VERSION}`,
          history: [{ created, comment }],
          os: platform.os,
          rootfs: { type: 'layers', diff_ids: [layer.diffId] },
        };
        const configBytes = Buffer.from(JSON.stringify(config));
        const id = sha256Digest(configBytes);
        this.commitImage(lease, id, configBytes, parseImageConfig(configBytes));
        if (ref !== undefined) {
          this.records.setRefs([[formatReference(ref), id]]);
          this.touch(id);
        }
        this.events.publish('image', 'import', { id, attributes: { name: ref !== undefined ? familiarString(ref) : id } });
        return id;
      } finally {
        this.leases.delete(lease);
        this.collectGarbage();
      }
    };
  }

  /** POST /images/prune: deletes unused images (untagged only, unless told otherwise). */
  prune(opts: PruneOptions): { items: DeleteItem[]; reclaimedBytes: number } {
    const items: DeleteItem[] = [];
    const sizeBefore = this.layers.list().reduce((sum, l) => sum + l.sizeBytes, 0);
    for (const image of this.list()) {
      if (opts.danglingOnly && image.refs.length > 0) continue;
      const usedBy = this.containers.imageUsers(image.id);
      if (usedBy.active.length + usedBy.inactive.length > 0) continue;
      if (opts.untilMs !== undefined && Date.parse(image.config.created ?? '') >= opts.untilMs) continue;
      if (opts.labels && !opts.labels((image.config.config?.Labels as Record<string, string> | null | undefined) ?? {})) continue;
      items.push(...this.untagAll(image.id, image.refs), ...this.deleteImage(image.id, true));
    }
    const reclaimedBytes = sizeBefore - this.layers.list().reduce((sum, l) => sum + l.sizeBytes, 0);
    this.events.publish('image', 'prune', { id: '', attributes: { reclaimed: String(reclaimedBytes) } });
    return { items, reclaimedBytes };
  }

  private importReference(repo: string, tag: string): ImageReference {
    const parsed = parseNormalizedReference(repo);
    if (tag !== '') validateTag(tag);
    return withDefaultTag(tag !== '' && parsed.digest === undefined ? { ...parsed, tag } : parsed);
  }

  /** POST /images/load: Docker's save format or an OCI layout. Returns dockerd's line for each image loaded. */
  async load(source: Readable, signal?: AbortSignal): Promise<string[]> {
    const lines: string[] = [];
    const stage = this.staging.newDir('load');
    const lease = new Set<Digest>();
    this.leases.add(lease);
    try {
      const archive = await StagedArchive.stage(source, stage, signal);
      const manifests = readManifests(archive);
      for (const m of manifests) {
        const configBytes = archive.read(m.config);
        const id = sha256Digest(configBytes);
        const config = parseImageConfig(configBytes);
        if (config.rootfs.diff_ids.length !== m.layers.length) {
          throw invalidParameter(`invalid image archive: ${m.config} names ${config.rootfs.diff_ids.length} layers, the manifest ${m.layers.length}`);
        }
        let parent: Digest | null = null;
        for (const [i, diffId] of config.rootfs.diff_ids.entries()) {
          parent = (await this.addLayer(lease, parent, diffId, { open: () => archive.open(m.layers[i]), localFile: () => archive.localFile(m.layers[i]) }, signal)).chainId;
        }
        this.commitImage(lease, id, configBytes, config);
        const refs = m.repoTags.map((t) => withDefaultTag(parseNormalizedReference(t)));
        if (refs.length > 0) this.records.setRefs(refs.map((r) => [formatReference(r), id]));
        if (refs.length > 0) this.touch(id);
        this.events.publish('image', 'load', { id, attributes: { name: id } });
        if (refs.length === 0) lines.push(`Loaded image ID: ${id}\n`);
        for (const r of refs) lines.push(`Loaded image: ${familiarString(r)}\n`);
      }
      return lines;
    } finally {
      this.staging.discard(stage);
      this.leases.delete(lease);
      this.collectGarbage();
    }
  }

  /**
   * GET /images/{name}/get and /images/get: resolves every name first (so a missing one is a 404
   * before the first byte), then streams Docker's save format. A bare repository name saves all its tags.
   */
  saveArchive(names: string[], signal?: AbortSignal): Readable {
    const selected = new Map<Digest, Set<string>>();
    const select = (id: Digest, tag?: string) => {
      const tags = selected.get(id) ?? new Set<string>();
      if (tag !== undefined) tags.add(tag);
      selected.set(id, tags);
    };
    for (const name of names) {
      const whole = this.repositoryRefs(name);
      if (whole.length > 0) {
        for (const [ref, id] of whole) select(id, familiarString(parseNormalizedReference(ref)));
        continue;
      }
      const id = this.resolveId(name);
      if (isIdReference(name, id)) select(id);
      else select(id, familiarString(withDefaultTag(parseNormalizedReference(name))));
    }
    const images = [...selected].map(([id, tags]) => ({ id, configBytes: this.blobs.readVerified(id), config: this.config(id), repoTags: [...tags] }));
    for (const image of images) this.events.publish('image', 'save', { id: image.id, attributes: { name: image.id } });
    return writeSaveArchive(images, { sizeBytes: (d) => this.blobs.sizeOf(d), open: (d) => this.blobs.openRead(d) }, signal);
  }

  /** For a bare repository name (busybox, not busybox:1 or an ID), every tag of it and its image. */
  private repositoryRefs(name: string): Array<[string, Digest]> {
    let ref: ImageReference;
    try {
      ref = parseNormalizedReference(name);
    } catch {
      return [];
    }
    if (ref.tag !== undefined || ref.digest !== undefined) return [];
    const repo = formatReference(ref);
    return this.records
      .all()
      .flatMap((r) => this.records.refsOf(r.id).map((x): [string, Digest] => [x, r.id]))
      .filter(([x]) => repositoryOf(x) === repo && !x.includes('@'));
  }

  /**
   * Unpacks a layer on top of `parent` unless that layer exists already. A new layer's tar is
   * always read from the source and verified against `expected` (the image's diff ID), as dockerd
   * does, even when an equal blob is stored: a tampered archive is refused, not silently accepted.
   * An uncompressed layer already staged on disk is renamed into the store rather than copied.
   */
  private async addLayer(lease: Set<Digest>, parent: Digest | null, expected: Digest | undefined, source: LayerSource, signal?: AbortSignal) {
    if (expected !== undefined) {
      const chainId = parent === null ? expected : (chainIds([parent, expected])[1] as Digest);
      const existing = this.layers.get(chainId);
      if (existing) return existing;
    }
    const diffId = await this.storeLayerBlob(source, expected, signal);
    lease.add(diffId);
    lease.add(parent === null ? diffId : (chainIds([parent, diffId])[1] as Digest));
    return this.layers.ensure(parent, diffId, (target, lowerDirs) => applyLayer(this.blobs.openRead(diffId), { target, lowerDirs, signal }));
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

  private commitImage(lease: Set<Digest>, id: Digest, configBytes: Buffer, config: ImageConfig): void {
    lease.add(id);
    this.blobs.putBytes(configBytes);
    if (!this.records.get(id)) this.records.put({ id });
    this.configs.set(id, config);
  }

  /** Reports and announces the untagging of every name of an image about to be deleted (which drops them in one write). */
  private untagAll(id: Digest, refs: string[]): DeleteItem[] {
    return refs.map((ref) => {
      this.events.publish('image', 'untag', { id, attributes: { name: id } });
      return { untagged: familiarString(parseNormalizedReference(ref)) };
    });
  }

  private deleteImage(id: Digest, prune: boolean): DeleteItem[] {
    const items: DeleteItem[] = [{ deleted: id }];
    this.records.delete(id);
    this.configs.delete(id);
    this.events.publish('image', 'delete', { id, attributes: { name: id } });
    if (prune) for (const chainId of this.collectGarbage()) items.push({ deleted: chainId });
    return items;
  }

  /** Deletes layers and blobs no image needs; returns the chain IDs of the layers removed. */
  private collectGarbage(): Digest[] {
    const keep = new Set<Digest>([...this.leases].flatMap((lease) => [...lease]));
    for (const top of this.containers.layersInUse()) for (let c: Digest | null = top; c !== null; c = this.layers.get(c)?.parent ?? null) keep.add(c);
    for (const r of this.records.all()) {
      keep.add(r.id);
      const config = this.config(r.id);
      for (const diffId of config.rootfs.diff_ids) keep.add(diffId);
      for (const chainId of chainIds(config.rootfs.diff_ids)) keep.add(chainId);
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

  private touch(id: Digest): void {
    this.records.put({ ...(this.records.get(id) as ImageRecord), lastTagTime: new Date().toISOString() });
  }

  private config(id: Digest): ImageConfig {
    let config = this.configs.get(id);
    if (config === undefined) {
      config = parseImageConfig(this.blobs.readVerified(id));
      this.configs.set(id, config);
    }
    return config;
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
    };
  }
}

/** Where a layer's bytes come from: a stream, and for staged archives the file itself. */
interface LayerSource {
  open(): Readable;
  localFile?(): string;
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

interface ArchiveManifest {
  config: string;
  repoTags: string[];
  layers: string[];
}

/** manifest.json of `docker save`; OCI layouts are read through their index.json. */
function readManifests(archive: StagedArchive): ArchiveManifest[] {
  if (archive.has('manifest.json')) {
    let raw: unknown;
    try {
      raw = JSON.parse(archive.readText('manifest.json'));
    } catch (err) {
      throw invalidParameter(`invalid image archive: manifest.json: ${(err as Error).message}`, err);
    }
    if (!Array.isArray(raw)) throw invalidParameter('invalid image archive: manifest.json must be a list');
    return raw.map((m: { Config?: unknown; RepoTags?: unknown; Layers?: unknown }) => {
      if (typeof m.Config !== 'string' || !Array.isArray(m.Layers) || !m.Layers.every((l) => typeof l === 'string')) {
        throw invalidParameter('invalid image archive: a manifest.json entry lacks Config or Layers');
      }
      const repoTags = Array.isArray(m.RepoTags) ? m.RepoTags.filter((t): t is string => typeof t === 'string') : [];
      return { config: m.Config, repoTags, layers: m.Layers as string[] };
    });
  }
  if (archive.has('index.json')) return readOciLayout(archive);
  throw invalidParameter('invalid image archive: neither manifest.json nor index.json found');
}

function readOciLayout(archive: StagedArchive): ArchiveManifest[] {
  const blobPath = (d: string) => {
    if (!isDigest(d)) throw invalidParameter(`invalid OCI layout: bad digest ${d}`);
    return `blobs/sha256/${d.slice(7)}`;
  };
  const index = JSON.parse(archive.readText('index.json')) as { manifests?: Array<{ digest: string; mediaType?: string; annotations?: Record<string, string> }> };
  const out: ArchiveManifest[] = [];
  for (const desc of index.manifests ?? []) {
    const manifest = JSON.parse(archive.readText(blobPath(desc.digest))) as { config?: { digest: string }; layers?: Array<{ digest: string }>; manifests?: unknown };
    if (manifest.config === undefined || manifest.layers === undefined) {
      throw invalidParameter('invalid OCI layout: only image manifests are supported in index.json, not nested indexes');
    }
    const name = desc.annotations?.['io.containerd.image.name'] ?? desc.annotations?.['org.opencontainers.image.ref.name'];
    const repoTags = name !== undefined && /[/:]/.test(name) ? [name] : [];
    out.push({ config: blobPath(manifest.config.digest), repoTags, layers: manifest.layers.map((l) => blobPath(l.digest)) });
  }
  return out;
}

function isIdReference(refOrId: string, id: Digest): boolean {
  const hex = refOrId.startsWith('sha256:') ? refOrId.slice(7) : refOrId;
  return /^[0-9a-f]+$/.test(hex) && id.slice(7).startsWith(hex);
}

/** The full repository name of a stored reference, without its tag or digest. */
function repositoryOf(ref: string): string {
  const { domain, path } = parseNormalizedReference(ref);
  return formatReference({ domain, path });
}

function shortId(id: Digest): string {
  return id.slice(7, 19);
}

