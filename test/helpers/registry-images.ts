// Images for the registry tests, made offline: configs over layer tars (busybox's and small ones
// of files), loaded into berthd as `docker save` archives, or put into a registry directly with
// the distribution API (blobs, then the manifest; indexes over several), so that the pull tests
// do not depend on berth's push.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Berthd } from './berthd.js';
import { BUSYBOX_PATH, busyboxLayer } from './busybox-image.js';
import { dockerSaveArchive, sha256, tarOf, type TestImage } from './image-archives.js';
import type { Registry } from './registry.js';

export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';

export interface Platform {
  architecture: string;
  os: string;
  variant?: string;
}

/** An image over `layers` (tars) with busybox's config (Cmd sh, the usual PATH), for `platform`. */
export function imageOf(layers: Buffer[], opts: { platform?: Platform; repoTags?: string[]; labels?: Record<string, string> } = {}): TestImage {
  const platform = opts.platform ?? { architecture: 'amd64', os: 'linux' };
  const diffIds = layers.map((l) => sha256(l));
  const created = '2024-05-06T07:08:09Z';
  const config = Buffer.from(
    JSON.stringify({
      architecture: platform.architecture,
      ...(platform.variant ? { variant: platform.variant } : {}),
      os: platform.os,
      config: { Env: [BUSYBOX_PATH], Cmd: ['sh'], Labels: opts.labels ?? null },
      created,
      history: layers.map((_, i) => ({ created, created_by: `registry test layer ${i}` })),
      rootfs: { type: 'layers', diff_ids: diffIds },
    }),
  );
  return { layers, config, id: sha256(config), diffIds, repoTags: opts.repoTags ?? [] };
}

/** A layer of files: name → content. */
export function filesLayer(files: Record<string, string | Buffer>): Promise<Buffer> {
  const dirs = new Set<string>();
  for (const name of Object.keys(files)) {
    const parts = name.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(`${parts.slice(0, i).join('/')}/`);
  }
  return tarOf([...[...dirs].sort().map((name) => ({ name, type: 'directory' as const })), ...Object.entries(files).map(([name, content]) => ({ name, content }))]);
}

/** busybox and two small layers of files (the label makes each such image distinct). */
export async function threeLayerImage(label = 'one'): Promise<TestImage> {
  const second = await filesLayer({ 'srv/a.txt': `first file ${label}\n`, 'srv/sub/b.txt': 'second file\n' });
  const third = await filesLayer({ 'srv/c.txt': `third layer ${label}\n` });
  return imageOf([await busyboxLayer(), second, third], { labels: { 'berth.test': label } });
}

/** busybox, a small layer and one of `bigBytes` random (incompressible) bytes, for pulls to interrupt. */
export async function bigLayerImage(bigBytes: number, label = 'big'): Promise<TestImage> {
  const small = await filesLayer({ 'srv/small.txt': `small ${label}\n` });
  const big = await filesLayer({ 'srv/big.bin': randomBytes(bigBytes) });
  return imageOf([await busyboxLayer(), small, big], { labels: { 'berth.test': label } });
}

/** Loads `image` into berthd under `tag` (POST /images/load). */
export async function loadImage(d: Berthd, image: TestImage, tag: string): Promise<void> {
  const r = await d.request('POST', '/images/load?quiet=1', { body: await dockerSaveArchive([{ ...image, repoTags: [tag] }]), timeoutMs: 60000 });
  if (r.status !== 200 || !r.body.includes(`Loaded image: ${tag}`)) throw new Error(`loading ${tag} answered ${r.status}: ${r.body}`);
}

export interface PushedImage {
  manifest: Buffer;
  /** the manifest's digest, what the registry answers in Docker-Content-Digest */
  digest: string;
  mediaType: string;
  configDigest: string;
  /** the compressed layers' digests, in order */
  layerDigests: string[];
  /** the gzip'd layers as uploaded */
  blobs: Buffer[];
}

/** Uploads a blob to `repo` unless the registry has it (HEAD, POST an upload, PUT it whole). */
export async function uploadBlob(reg: Registry, repo: string, blob: Buffer): Promise<string> {
  const digest = sha256(blob);
  const scope = `repository:${repo}:pull,push`;
  const head = await reg.fetch('HEAD', `/v2/${repo}/blobs/${digest}`, { scope });
  if (head.status === 200) return digest;
  const post = await reg.fetch('POST', `/v2/${repo}/blobs/uploads/`, { scope });
  if (post.status !== 202) throw new Error(`starting an upload to ${repo}: ${post.status} ${post.text()}`);
  const location = new URL(String(post.headers.location), reg.url);
  location.searchParams.set('digest', digest);
  const put = await reg.fetch('PUT', `${location.pathname}${location.search}`, { scope, body: blob, headers: { 'Content-Type': 'application/octet-stream' } });
  if (put.status !== 201) throw new Error(`uploading ${digest} to ${repo}: ${put.status} ${put.text()}`);
  return digest;
}

/** PUTs a manifest (or index) to `repo` as `ref`; its digest, checked against the registry's. */
export async function putManifest(reg: Registry, repo: string, ref: string, manifest: Buffer, mediaType: string): Promise<string> {
  const r = await reg.fetch('PUT', `/v2/${repo}/manifests/${ref}`, { scope: `repository:${repo}:pull,push`, body: manifest, headers: { 'Content-Type': mediaType } });
  if (r.status !== 201) throw new Error(`putting the manifest ${repo}:${ref}: ${r.status} ${r.text()}`);
  const digest = sha256(manifest);
  if (r.headers['docker-content-digest'] !== digest) throw new Error(`the registry took ${repo}:${ref} as ${String(r.headers['docker-content-digest'])}, not ${digest}`);
  return digest;
}

/** Puts `image` into the registry as `repo:ref` (Docker's schema 2 by default, or OCI), without berth. */
export async function pushDirect(reg: Registry, repo: string, ref: string, image: TestImage, opts: { oci?: boolean } = {}): Promise<PushedImage> {
  const blobs = image.layers.map((l) => gzipSync(l));
  const layerDigests: string[] = [];
  for (const b of blobs) layerDigests.push(await uploadBlob(reg, repo, b));
  const configDigest = await uploadBlob(reg, repo, image.config);
  const mediaType = opts.oci ? OCI_MANIFEST : DOCKER_MANIFEST;
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      config: { mediaType: opts.oci ? 'application/vnd.oci.image.config.v1+json' : 'application/vnd.docker.container.image.v1+json', size: image.config.length, digest: configDigest },
      layers: blobs.map((b, i) => ({ mediaType: opts.oci ? 'application/vnd.oci.image.layer.v1.tar+gzip' : 'application/vnd.docker.image.rootfs.diff.tar.gzip', size: b.length, digest: layerDigests[i] })),
    }),
  );
  const digest = await putManifest(reg, repo, ref, manifest, mediaType);
  return { manifest, digest, mediaType, configDigest, layerDigests, blobs };
}

/** Puts an index (OCI, or Docker's manifest list) over images already in `repo` as `repo:ref`; its digest. */
export async function pushIndex(reg: Registry, repo: string, ref: string, entries: Array<{ image: PushedImage; platform: Platform }>, opts: { dockerList?: boolean } = {}): Promise<{ digest: string; index: Buffer; mediaType: string }> {
  const mediaType = opts.dockerList ? DOCKER_MANIFEST_LIST : OCI_INDEX;
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType,
      manifests: entries.map(({ image, platform }) => ({ mediaType: image.mediaType, size: image.manifest.length, digest: image.digest, platform })),
    }),
  );
  return { digest: await putManifest(reg, repo, ref, index, mediaType), index, mediaType };
}

/** The gzip'd blob with its header's MTIME changed: it still decompresses to the same tar, but its digest is another. */
export function sameContentOtherDigest(gz: Buffer): Buffer {
  const copy = Buffer.from(gz);
  copy[4] ^= 0x5a;
  return copy;
}
