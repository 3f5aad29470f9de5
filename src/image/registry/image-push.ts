// POST /images/{name}/push: as dockerd's distribution/push_v2.go. Each layer goes as its
// compressed blob: the registry's own bytes for a pulled layer, else the tar gzip'd once and kept,
// so that pushing again sends the same bytes and the manifest keeps its digest. A blob the registry
// has already is not sent (HEAD first); the rest upload a few at a time (POST, then one PUT); the
// config follows, then the schema 2 manifest under the tag. The digest becomes a RepoDigest.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { EventBus } from '../../events/event-bus.js';
import { EngineError, notFound } from '../../errors.js';
import type { ProgressSink, StreamSession } from '../../lib/stream-session.js';
import type { Staging } from '../../store/staging.js';
import { LAYER_ZLIB_CHUNK_BYTES } from '../archive/layer-compression.js';
import type { Digest } from '../digest.js';
import type { Image, ImageStore, Lease } from '../image-store.js';
import type { LayerBlob } from '../layer-blobs.js';
import { familiarName, familiarString, formatReference, parseNormalizedReference, validateTag, type ImageReference } from '../reference.js';
import type { AuthConfig } from './auth-header.js';
import { Slots } from './concurrency.js';
import { MEDIA, manifestDigest } from './manifests.js';
import { RegistryClient, RegistryError, readText, registryReason } from './registry-client.js';
import { endpointsFor, type RegistrySettings } from './registry-hosts.js';

const PROGRESS_EVERY_MS = 100;

export interface PushRequest {
  name: string;
  tag: string;
  auth: AuthConfig | undefined;
}

export interface PushDeps {
  store: ImageStore;
  staging: Staging;
  events: EventBus;
  settings: RegistrySettings;
  maxConcurrentUploads: number;
}

/** The tags a push sends: the one asked for, or every local tag of the repository. */
function pushTargets(store: ImageStore, ref: ImageReference, tag: string): ImageReference[] {
  if (tag !== '') return [{ domain: ref.domain, path: ref.path, tag }];
  if (ref.tag !== undefined) return [ref];
  const repo = formatReference({ domain: ref.domain, path: ref.path });
  const tagged = store
    .references()
    .map(([r]) => r)
    .filter((r) => !r.includes('@') && r.slice(0, r.lastIndexOf(':')) === repo)
    .map((r) => parseNormalizedReference(r));
  if (tagged.length === 0) throw notFound(`An image does not exist locally with the tag: ${familiarName(ref)}`);
  return tagged;
}

export function imagePush(deps: PushDeps, req: PushRequest): StreamSession<ProgressSink> {
  const ref = parseNormalizedReference(req.name);
  if (req.tag !== '') validateTag(req.tag);
  return {
    async run({ out, signal }) {
      // the first line goes at once; what follows fails in-band, as dockerd's
      await out.status(`The push refers to repository [${familiarName(ref)}]`);
      const targets = pushTargets(deps.store, ref, req.tag);
      const images = targets.map((target) => {
        const id = deps.store.idOf(formatReference(target));
        if (id === undefined) throw notFound(`tag does not exist: ${familiarString(target)}`);
        return deps.store.get(id);
      });
      const client = new RegistryClient(endpointsFor(ref.domain, deps.settings), req.auth, signal);
      const scope = `repository:${ref.path}:pull,push`;
      for (const [i, target] of targets.entries()) await pushOne(deps, client, target, images[i], scope, out, signal);
      const named = familiarString(req.tag !== '' ? { domain: ref.domain, path: ref.path, tag: req.tag } : ref);
      deps.events.publish('image', 'push', { id: named, attributes: { name: familiarName(ref) } });
    },
  };
}

async function pushOne(deps: PushDeps, client: RegistryClient, ref: ImageReference, image: Image, scope: string, out: ProgressSink, signal: AbortSignal): Promise<void> {
  const { store } = deps;
  const diffIds = image.config.rootfs.diff_ids;
  const layers: LayerBlob[] = [];
  await store.withLease(async (lease) => {
    // top first, as dockerd lists them
    const shortIds = diffIds.map((d) => d.slice(7, 19));
    for (const id of [...shortIds].reverse()) await out.status('Preparing', id);
    const slots = new Slots(deps.maxConcurrentUploads);
    for (const [i, id] of shortIds.entries()) if (i >= deps.maxConcurrentUploads) await out.status('Waiting', id);
    const results = await Promise.all(
      diffIds.map((diffId, i) =>
        slots.run(async () => {
          const blob = await compressedBlob(deps, lease, diffId, signal);
          await uploadBlob(client, ref, blob, store.blobPath(blob.digest), scope, out, shortIds[i], signal);
          return blob;
        }),
      ),
    );
    layers.push(...results);
  });
  const configBytes = store.configBytes(image.id);
  await uploadConfig(client, ref, configBytes, image.id, scope);
  const manifest = Buffer.from(
    JSON.stringify(
      {
        schemaVersion: 2,
        mediaType: MEDIA.dockerManifest,
        config: { mediaType: MEDIA.dockerConfig, size: configBytes.length, digest: image.id },
        layers: layers.map((l) => ({ mediaType: l.mediaType || MEDIA.dockerLayer, size: l.sizeBytes, digest: l.digest })),
      },
      null,
      3,
    ),
  );
  const tag = ref.tag as string;
  const res = await client.request('PUT', `/v2/${ref.path}/manifests/${tag}`, { scope, headers: { 'Content-Type': MEDIA.dockerManifest, 'Content-Length': manifest.length }, body: manifest });
  const text = await readText(res.body);
  if (res.status !== 201 && res.status !== 200) throw new RegistryError(`failed to put the manifest: ${registryReason(text, res.status)}`, res.status);
  const digest = manifestDigest(manifest);
  await store.name(image.id, [{ domain: ref.domain, path: ref.path, digest }]);
  await out.status(`${tag}: digest: ${digest} size: ${manifest.length}`);
  await out.aux({ Tag: tag, Digest: digest, Size: manifest.length });
}

/** The layer's compressed blob: kept from a pull or an earlier push, or the tar gzip'd now, once. */
async function compressedBlob(deps: PushDeps, lease: Lease, diffId: Digest, signal: AbortSignal): Promise<LayerBlob> {
  const kept = deps.store.layerBlob(diffId);
  if (kept) {
    lease.add(kept.digest);
    return kept;
  }
  if (!deps.store.hasBlob(diffId)) throw new EngineError('system', `the layer ${diffId} has no stored tar to push`);
  const file = deps.staging.newFile('push');
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      sizeBytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(deps.store.openBlob(diffId), createGzip({ chunkSize: LAYER_ZLIB_CHUNK_BYTES }), counter, createWriteStream(file, { mode: 0o600 }), { signal });
  const blob: LayerBlob = { digest: `sha256:${hash.digest('hex')}`, sizeBytes, mediaType: MEDIA.dockerLayer };
  await deps.store.addLayerBlob(lease, diffId, file, blob);
  return blob;
}

async function uploadBlob(client: RegistryClient, ref: ImageReference, blob: LayerBlob, file: string, scope: string, out: ProgressSink, shortId: string, signal: AbortSignal): Promise<void> {
  if (await hasBlob(client, ref, blob.digest, scope)) {
    await out.status('Layer already exists', shortId);
    return;
  }
  const total = statSync(file).size;
  let current = 0;
  let last = 0;
  const counter = () =>
    createReadStream(file, { signal }).pipe(
      new Transform({
        transform(chunk: Buffer, _enc, done) {
          current += chunk.length;
          if (Date.now() - last >= PROGRESS_EVERY_MS) {
            last = Date.now();
            void out.progress(shortId, 'Pushing', current, total).catch(() => {});
          }
          done(null, chunk);
        },
      }),
    );
  await putBlob(client, ref, blob.digest, total, counter, scope);
  await out.progress(shortId, 'Pushing', total, total);
  await out.status('Pushed', shortId);
}

async function uploadConfig(client: RegistryClient, ref: ImageReference, bytes: Buffer, digest: Digest, scope: string): Promise<void> {
  if (await hasBlob(client, ref, digest, scope)) return;
  await putBlob(client, ref, digest, bytes.length, bytes, scope);
}

async function hasBlob(client: RegistryClient, ref: ImageReference, digest: Digest, scope: string): Promise<boolean> {
  const res = await client.request('HEAD', `/v2/${ref.path}/blobs/${digest}`, { scope });
  res.body.resume();
  return res.status === 200;
}

/** A monolithic upload: POST for the upload's location, then one PUT of the whole blob with its digest. */
async function putBlob(client: RegistryClient, ref: ImageReference, digest: Digest, size: number, body: Buffer | (() => Readable), scope: string): Promise<void> {
  const started = await client.request('POST', `/v2/${ref.path}/blobs/uploads/`, { scope, headers: { 'Content-Length': 0 } });
  const startText = await readText(started.body);
  if (started.status !== 202) throw new RegistryError(`failed to start an upload: ${registryReason(startText, started.status)}`, started.status);
  const location = started.headers.location;
  if (!location) throw new RegistryError('the registry started an upload without a location');
  const url = new URL(location, started.url);
  url.searchParams.set('digest', digest);
  const res = await client.request('PUT', url.toString(), {
    scope,
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': size },
    body,
  });
  const text = await readText(res.body);
  if (res.status !== 201) throw new RegistryError(`failed to upload ${digest}: ${registryReason(text, res.status)}`, res.status);
}
