// The manifests a registry serves, as Docker reads them: Docker's schema 2 and the OCI image
// manifest, and the lists of them per platform (Docker's manifest list, the OCI index). Schema 1 is
// refused, as later Docker engines refuse it.
import { createHash } from 'node:crypto';
import { EngineError, invalidParameter } from '../../errors.js';
import { isDigest, type Digest } from '../digest.js';
import type { Platform } from '../platform.js';

export const MEDIA = {
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  schema1: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
} as const;

/** What a pull asks for, in Docker's order of preference. */
export const MANIFEST_ACCEPT = [MEDIA.dockerManifest, MEDIA.dockerList, MEDIA.ociManifest, MEDIA.ociIndex].join(', ');

export interface Descriptor {
  mediaType: string;
  digest: Digest;
  size: number;
  platform?: { os?: string; architecture?: string; variant?: string };
  urls?: string[];
}

export type Manifest = { kind: 'image'; mediaType: string; config: Descriptor; layers: Descriptor[] } | { kind: 'list'; mediaType: string; manifests: Descriptor[] };

export function manifestDigest(bytes: Buffer): Digest {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Reads a manifest's bytes by the media type the registry named (or the body's own). */
export function parseManifest(bytes: Buffer, contentType: string | undefined): Manifest {
  let body: { schemaVersion?: number; mediaType?: string; config?: unknown; layers?: unknown; manifests?: unknown };
  try {
    body = JSON.parse(bytes.toString('utf8')) as typeof body;
  } catch {
    throw new EngineError('system', 'the registry answered a manifest that is not JSON');
  }
  const mediaType = (contentType?.split(';')[0].trim() || body.mediaType || '').toLowerCase();
  if (body.schemaVersion === 1 || mediaType === MEDIA.schema1 || mediaType === 'application/vnd.docker.distribution.manifest.v1+json') {
    throw invalidParameter('schema 1 manifests are not supported by berth: the image must be pushed again with a newer client (Docker 1.10 or later)');
  }
  if (Array.isArray(body.manifests)) return { kind: 'list', mediaType: mediaType || MEDIA.ociIndex, manifests: body.manifests.map(descriptor) };
  if (body.config !== undefined && Array.isArray(body.layers)) {
    return { kind: 'image', mediaType: mediaType || MEDIA.ociManifest, config: descriptor(body.config), layers: body.layers.map(descriptor) };
  }
  throw new EngineError('system', `unsupported manifest media type ${JSON.stringify(mediaType)}`);
}

function descriptor(raw: unknown): Descriptor {
  const d = raw as Partial<Descriptor> | null;
  if (d === null || typeof d !== 'object' || typeof d.digest !== 'string' || !isDigest(d.digest) || typeof d.size !== 'number') {
    throw new EngineError('system', 'the registry answered a manifest with a malformed descriptor');
  }
  return { mediaType: d.mediaType ?? '', digest: d.digest, size: d.size, ...(d.platform ? { platform: d.platform } : {}), ...(d.urls ? { urls: d.urls } : {}) };
}

/** The list's entry for the platform (a variant asked for must match; none asked takes the first). */
export function selectPlatform(list: Descriptor[], want: Platform): Descriptor | undefined {
  const candidates = list.filter((d) => (d.platform?.os ?? 'linux') === want.os && normalArch(d.platform?.architecture ?? '') === normalArch(want.architecture));
  if (want.variant) return candidates.find((d) => d.platform?.variant === want.variant) ?? candidates.find((d) => !d.platform?.variant);
  return candidates[0];
}

function normalArch(arch: string): string {
  return arch === 'x86_64' ? 'amd64' : arch === 'aarch64' ? 'arm64' : arch;
}
