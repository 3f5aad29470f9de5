// Writes images in the format of `docker save` (Docker 20.10): per layer a folder with VERSION,
// json and layer.tar; the config as <id>.json; manifest.json and the legacy repositories file.
// Layer folders are named after the layer's chain ID, so images that share layers share folders.
import { Readable } from 'node:stream';
import { pack, type Pack } from 'tar-stream';
import { chainIds, digestHex, type Digest } from '../digest.js';
import type { ImageConfig } from '../image-config.js';

export interface SavedImage {
  id: Digest;
  configBytes: Buffer;
  config: ImageConfig;
  /** Familiar names (busybox:latest) to record for it. */
  repoTags: string[];
}

export interface LayerSource {
  sizeBytes(diffId: Digest): number;
  open(diffId: Digest): Readable;
}

const EPOCH = new Date(0);

export function writeSaveArchive(images: SavedImage[], layers: LayerSource, signal?: AbortSignal): Readable {
  const out = pack();
  void fill(out, images, layers, signal).then(
    () => out.finalize(),
    (err: Error) => out.destroy(err),
  );
  // tar-stream's streams are streamx streams; callers get a Node stream
  return Readable.from(out);
}

async function fill(out: Pack, images: SavedImage[], layers: LayerSource, signal?: AbortSignal): Promise<void> {
  const written = new Set<string>();
  const manifest: Array<{ Config: string; RepoTags: string[] | null; Layers: string[] }> = [];
  const repositories: Record<string, Record<string, string>> = {};
  for (const image of images) {
    const chain = chainIds(image.config.rootfs.diff_ids);
    const layerPaths: string[] = [];
    for (const [i, diffId] of image.config.rootfs.diff_ids.entries()) {
      signal?.throwIfAborted();
      const dir = digestHex(chain[i]);
      layerPaths.push(`${dir}/layer.tar`);
      if (written.has(dir)) continue;
      written.add(dir);
      const mtime = image.config.created ? new Date(image.config.created) : EPOCH;
      await addDir(out, dir, mtime);
      await addFile(out, `${dir}/VERSION`, Buffer.from('1.0'), mtime);
      const legacy = { id: dir, ...(i > 0 ? { parent: digestHex(chain[i - 1]) } : {}), created: image.config.created ?? EPOCH.toISOString(), os: image.config.os ?? 'linux' };
      await addFile(out, `${dir}/json`, Buffer.from(JSON.stringify(legacy)), mtime);
      await addStream(out, `${dir}/layer.tar`, layers.sizeBytes(diffId), layers.open(diffId), mtime);
    }
    const configName = `${digestHex(image.id)}.json`;
    if (!written.has(configName)) {
      written.add(configName);
      await addFile(out, configName, image.configBytes, image.config.created ? new Date(image.config.created) : EPOCH);
    }
    manifest.push({ Config: configName, RepoTags: image.repoTags.length > 0 ? image.repoTags : null, Layers: layerPaths });
    const top = chain.at(-1);
    for (const tag of image.repoTags) {
      const colon = tag.lastIndexOf(':');
      if (top === undefined || colon < 0) continue;
      (repositories[tag.slice(0, colon)] ??= {})[tag.slice(colon + 1)] = digestHex(top);
    }
  }
  await addFile(out, 'manifest.json', Buffer.from(JSON.stringify(manifest)), EPOCH);
  if (Object.keys(repositories).length > 0) await addFile(out, 'repositories', Buffer.from(JSON.stringify(repositories)), EPOCH);
}

function addDir(out: Pack, name: string, mtime: Date): Promise<void> {
  return new Promise((resolve, reject) => out.entry({ name: `${name}/`, type: 'directory', mode: 0o755, mtime }, (err) => (err ? reject(err) : resolve())));
}

function addFile(out: Pack, name: string, data: Buffer, mtime: Date): Promise<void> {
  return new Promise((resolve, reject) => out.entry({ name, mode: 0o644, mtime, size: data.length }, data, (err) => (err ? reject(err) : resolve())));
}

function addStream(out: Pack, name: string, size: number, data: Readable, mtime: Date): Promise<void> {
  return new Promise((resolve, reject) => {
    const entry = out.entry({ name, mode: 0o644, mtime, size }, (err) => (err ? reject(err) : resolve()));
    // the archive torn down mid-layer (the client left) destroys the entry with an error: pipe()
    // rethrows an error its destination has no listener for, and the layer's file stays open
    entry.on('error', (err) => {
      data.destroy();
      reject(err);
    });
    data.on('error', (err) => {
      entry.destroy(err);
      reject(err);
    });
    data.pipe(entry);
  });
}
