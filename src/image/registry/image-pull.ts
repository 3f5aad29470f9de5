// POST /images/create?fromImage=: a pull, as dockerd's distribution/pull_v2.go does it. The
// manifest is resolved first (a list by the platform asked for), so a missing tag or a refused
// login is a status code; then the stream: up to N layers download at once while each is
// unpacked in order as it arrives (a growing file read by the unpacker), every byte hashed and
// checked against its digest, the compressed blob kept for later pushes. The image is recorded
// only once every layer and the config are verified: a pull that fails leaves no image.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import type { EventBus } from '../../events/event-bus.js';
import { EngineError, invalidParameter, notFound } from '../../errors.js';
import type { ProgressSink, StreamSession } from '../../lib/stream-session.js';
import type { Staging } from '../../store/staging.js';
import { openLayerTar } from '../archive/layer-compression.js';
import { chainIds, type Digest } from '../digest.js';
import { parseImageConfig } from '../image-config.js';
import type { ImageStore, Lease } from '../image-store.js';
import { hostPlatform, type Platform } from '../platform.js';
import { familiarName, familiarString, formatReference, parseNormalizedReference, validateTag, type ImageReference } from '../reference.js';
import type { AuthConfig } from './auth-header.js';
import { Slots } from './concurrency.js';
import { GrowingFile } from './growing-file.js';
import { MANIFEST_ACCEPT, manifestDigest, parseManifest, selectPlatform, type Descriptor, type Manifest } from './manifests.js';
import { RegistryClient, RegistryError, readText, registryReason } from './registry-client.js';
import { endpointsFor, type RegistrySettings } from './registry-hosts.js';

/** how long the layers a failed pull verified wait for its retry */
const KEEP_FAILED_LAYERS_MS = 10 * 60_000;
/** how often a layer's Downloading and Extracting lines may be written */
const PROGRESS_EVERY_MS = 100;

export interface PullRequest {
  fromImage: string;
  tag: string;
  platform: string;
  auth: AuthConfig | undefined;
}

export interface PullDeps {
  store: ImageStore;
  staging: Staging;
  events: EventBus;
  settings: RegistrySettings;
  maxConcurrentDownloads: number;
}

/** The reference a pull names: fromImage with the tag (or digest) given apart; undefined tag and digest mean every tag. */
function pullReference(fromImage: string, tag: string): ImageReference {
  const ref = parseNormalizedReference(fromImage);
  if (tag === '') return ref;
  if (/^[a-z0-9]+:[a-f0-9]{32,}$/.test(tag)) return parseNormalizedReference(`${formatReference({ domain: ref.domain, path: ref.path })}@${tag}`);
  validateTag(tag);
  return { ...ref, tag };
}

/** A pull's platform: any os/arch may be pulled (only the host's can run); the daemon's by default. */
function pullPlatform(text: string): Platform {
  const host = hostPlatform();
  if (text.trim() === '') return host;
  const [os, architecture = host.architecture, variant] = text.trim().toLowerCase().split('/');
  return { os, architecture: architecture === 'x86_64' ? 'amd64' : architecture === 'aarch64' ? 'arm64' : architecture, ...(variant ? { variant } : {}) };
}

export function imagePull(deps: PullDeps, req: PullRequest): StreamSession<ProgressSink> {
  const ref = pullReference(req.fromImage, req.tag);
  const platform = pullPlatform(req.platform);
  return {
    async run({ out, signal }) {
      const client = new RegistryClient(endpointsFor(ref.domain, deps.settings), req.auth, signal);
      const scope = `repository:${ref.path}:pull`;
      const everyTag = ref.tag === undefined && ref.digest === undefined;
      const targets = everyTag ? await allTags(client, ref, scope) : [ref];
      let changed = false;
      for (const target of targets) changed = (await pullOne(deps, client, target, platform, scope, out, signal, !everyTag)) || changed;
      // every tag: one status and one event, for the name alone
      const named = familiarString(ref);
      if (everyTag) await out.status(`Status: ${changed ? 'Downloaded newer image' : 'Image is up to date'} for ${named}`);
      deps.events.publish('image', 'pull', { id: named, attributes: { name: familiarName(ref) } });
    },
  };
}

async function allTags(client: RegistryClient, ref: ImageReference, scope: string): Promise<ImageReference[]> {
  const res = await client.request('GET', `/v2/${ref.path}/tags/list`, { scope });
  const text = await readText(res.body);
  if (res.status !== 200) throw new RegistryError(registryReason(text, res.status), res.status);
  const tags = (JSON.parse(text) as { tags?: string[] | null }).tags ?? [];
  return tags.map((tag) => ({ ...ref, tag }));
}

/** Pulls one tag or digest; whether its reference is new or moved (dockerd's "Downloaded newer image"). */
async function pullOne(deps: PullDeps, client: RegistryClient, ref: ImageReference, platform: Platform, scope: string, out: ProgressSink, signal: AbortSignal, tellStatus: boolean): Promise<boolean> {
  const { store } = deps;
  const first = await fetchManifest(client, ref, ref.digest ?? (ref.tag as string), scope);
  await out.status(`Pulling from ${ref.path}`, ref.tag ?? familiarString(ref));
  const { manifest, digest } = await forPlatform(client, ref, first, platform, scope);
  if (manifest.kind !== 'image') throw new EngineError('system', `${familiarString(ref)}: a manifest list inside a manifest list`);
  const id = manifest.config.digest;
  const digestRef: ImageReference = { domain: ref.domain, path: ref.path, digest };
  const refs = ref.tag !== undefined ? [ref, digestRef] : [digestRef];
  const changed = !refs.every((r) => store.idOf(formatReference(r)) === id);
  if (!store.hasImage(id)) {
    const configBytes = await fetchBlob(client, ref, manifest.config, scope);
    const config = parseImageConfig(configBytes);
    const diffIds = config.rootfs.diff_ids;
    const layers = manifest.layers.filter((l) => !(l.urls && l.urls.length > 0));
    if (diffIds.length !== layers.length) throw new EngineError('system', `${familiarString(ref)}: the manifest names ${layers.length} layers, the config ${diffIds.length}`);
    await store.withLease(
      async (lease) => {
        await fetchLayers(deps, client, ref, layers, diffIds, lease, scope, out, signal);
        await store.commitImage(lease, id, configBytes, config);
        await store.name(id, refs);
      },
      { keepOnFailureMs: KEEP_FAILED_LAYERS_MS },
    );
  } else if (changed) {
    await store.name(id, refs);
  }
  await out.status(`Digest: ${digest}`);
  if (tellStatus) await out.status(`Status: ${changed ? 'Downloaded newer image' : 'Image is up to date'} for ${familiarString(ref)}`);
  return changed;
}

/** The image manifest for the platform (a list's entry), and the digest a RepoDigest names: the list's when there is one, as dockerd. */
async function forPlatform(client: RegistryClient, ref: ImageReference, first: { manifest: Manifest; digest: Digest }, platform: Platform, scope: string): Promise<{ manifest: Manifest; digest: Digest }> {
  if (first.manifest.kind === 'image') return first;
  const chosen = selectPlatform(first.manifest.manifests, platform);
  if (chosen === undefined) {
    throw notFound(`no matching manifest for ${platform.os}/${platform.architecture}${platform.variant ? `/${platform.variant}` : ''} in the manifest list entries`);
  }
  const second = await fetchManifest(client, ref, chosen.digest, scope);
  return { manifest: second.manifest, digest: first.digest };
}

async function fetchManifest(client: RegistryClient, ref: ImageReference, tagOrDigest: string, scope: string): Promise<{ manifest: Manifest; digest: Digest }> {
  const res = await client.request('GET', `/v2/${ref.path}/manifests/${tagOrDigest}`, { scope, headers: { Accept: MANIFEST_ACCEPT } });
  const bytes = Buffer.from(await readText(res.body, 4 * 1024 * 1024));
  if (res.status === 404) throw notFound(`manifest for ${familiarString(ref)} not found: manifest unknown: ${registryReason(bytes.toString(), 404)}`);
  // a refused login is the daemon's 500 with the registry's reason, as dockerd's
  if (res.status !== 200) throw new RegistryError(registryReason(bytes.toString(), res.status), res.status === 401 || res.status === 403 ? 500 : res.status);
  const digest = manifestDigest(bytes);
  if (tagOrDigest.includes(':') && tagOrDigest !== digest) throw invalidParameter(`manifest verification failed for digest ${tagOrDigest}`);
  const contentType = res.headers['content-type'];
  return { manifest: parseManifest(bytes, contentType), digest };
}

/** A small blob (the config), verified. */
async function fetchBlob(client: RegistryClient, ref: ImageReference, d: Descriptor, scope: string): Promise<Buffer> {
  const res = await client.request('GET', `/v2/${ref.path}/blobs/${d.digest}`, { scope });
  const bytes = Buffer.from(await readText(res.body, 16 * 1024 * 1024), 'utf8');
  if (res.status !== 200) throw new RegistryError(`${registryReason(bytes.toString(), res.status)}`, res.status);
  if (manifestDigest(bytes) !== d.digest) throw new EngineError('system', `image config verification failed for digest ${d.digest}`);
  return bytes;
}

interface LayerJob {
  index: number;
  descriptor: Descriptor;
  diffId: Digest;
  shortId: string;
  file?: GrowingFile;
  download?: Promise<void>;
}

async function fetchLayers(
  deps: PullDeps,
  client: RegistryClient,
  ref: ImageReference,
  layers: Descriptor[],
  diffIds: Digest[],
  lease: Lease,
  scope: string,
  out: ProgressSink,
  signal: AbortSignal,
): Promise<void> {
  const { store, staging } = deps;
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const jobs: LayerJob[] = layers.map((descriptor, index) => ({ index, descriptor, diffId: diffIds[index], shortId: descriptor.digest.slice(7, 19) }));
  const chains = chainIds(diffIds);
  const present = jobs.map((j) => store.hasLayer(j.index === 0 ? null : chains[j.index - 1], j.diffId) !== undefined);
  const slots = new Slots(deps.maxConcurrentDownloads);
  try {
    for (const job of jobs) await out.status(present[job.index] ? 'Already exists' : 'Pulling fs layer', job.shortId);
    for (const job of jobs) {
      if (present[job.index]) continue;
      const waiting = slots.full;
      if (waiting) await out.status('Waiting', job.shortId);
      job.file = new GrowingFile(staging.newFile('pull'));
      const file = job.file;
      job.download = slots.run(() => download(client, ref, job, file, scope, out, abort.signal));
      // a failed download fails the file's reader, and so the unpack
      job.download.catch((err: Error) => file.fail(err));
    }
    let parent: Digest | null = null;
    for (const job of jobs) {
      if (present[job.index]) {
        parent = chains[job.index];
        continue;
      }
      const file = job.file as GrowingFile;
      const counted = countProgress(file.reader(), job, out);
      const tar = await openLayerTar(counted);
      const { tarSizeBytes } = await store.addLayerStreaming(lease, parent, job.diffId, tar, abort.signal);
      await job.download;
      await store.addLayerBlob(lease, job.diffId, file.path, { digest: job.descriptor.digest, sizeBytes: job.descriptor.size, mediaType: job.descriptor.mediaType, tarSizeBytes });
      await out.status('Pull complete', job.shortId);
      parent = chains[job.index];
    }
  } catch (err) {
    abort.abort(err);
    await Promise.allSettled(jobs.map((j) => j.download));
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    for (const job of jobs) if (job.file) rmSync(job.file.path, { force: true });
  }
}

async function download(client: RegistryClient, ref: ImageReference, job: LayerJob, file: GrowingFile, scope: string, out: ProgressSink, signal: AbortSignal): Promise<void> {
  const { digest, size } = job.descriptor;
  const res = await client.request('GET', `/v2/${ref.path}/blobs/${digest}`, { scope });
  if (res.status !== 200) {
    const text = await readText(res.body).catch(() => '');
    throw new RegistryError(`error pulling blob ${digest}: ${registryReason(text, res.status)}`, res.status);
  }
  const hash = createHash('sha256');
  let current = 0;
  let last = 0;
  const onAbort = () => res.body.destroy(signal.reason instanceof Error ? signal.reason : new Error('pull aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of res.body) {
      const buffer = chunk as Buffer;
      hash.update(buffer);
      await file.append(buffer);
      current += buffer.length;
      if (Date.now() - last >= PROGRESS_EVERY_MS) {
        last = Date.now();
        await out.progress(job.shortId, 'Downloading', current, size);
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (!res.body.complete) throw new RegistryError(`error pulling blob ${digest}: the connection closed before the blob was whole`);
  await out.status('Verifying Checksum', job.shortId);
  const got: Digest = `sha256:${hash.digest('hex')}`;
  if (got !== digest) throw new EngineError('system', `filesystem layer verification failed for digest ${digest}`);
  await file.finish();
  await out.status('Download complete', job.shortId);
}

/** The compressed bytes as the unpacker reads them, told as Extracting. */
function countProgress(source: Readable, job: LayerJob, out: ProgressSink): Transform {
  let current = 0;
  let last = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      current += chunk.length;
      if (Date.now() - last >= PROGRESS_EVERY_MS || current === job.descriptor.size) {
        last = Date.now();
        void out.progress(job.shortId, 'Extracting', current, job.descriptor.size).catch(() => {});
      }
      done(null, chunk);
    },
  });
  source.on('error', (err: Error) => counter.destroy(err));
  return source.pipe(counter);
}
