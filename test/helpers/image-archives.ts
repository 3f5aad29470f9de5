// Image archives made in code, so the image tests never need Docker: layer tars from entry lists,
// image configs, and whole `docker save` and OCI layout archives around them.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { extract, pack, type Header } from 'tar-stream';

export type LayerEntry = Partial<Header> & { name: string; content?: string | Buffer };

export function sha256(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A tar of the given entries, in order. Directories need no content; files default to mode 0644. */
export async function tarOf(entries: LayerEntry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    p.on('end', resolve);
    p.on('error', reject);
  });
  for (const { content, ...header } of entries) {
    const type = header.type ?? 'file';
    const body = content === undefined ? Buffer.alloc(0) : Buffer.from(content);
    await new Promise<void>((resolve, reject) =>
      p.entry({ mode: type === 'directory' ? 0o755 : 0o644, mtime: new Date(1_600_000_000_000), ...header, type }, body, (err) => (err ? reject(err) : resolve())),
    );
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

export interface TestImage {
  layers: Buffer[];
  config: Buffer;
  id: string;
  diffIds: string[];
  repoTags: string[];
}

/** An image config over the given layer tars, as `docker import` or a build would write it. */
export function makeImage(layers: Buffer[], opts: { repoTags?: string[]; cmd?: string[]; labels?: Record<string, string>; created?: string; comment?: string } = {}): TestImage {
  const diffIds = layers.map((l) => sha256(l));
  const created = opts.created ?? '2024-01-02T03:04:05.123456789Z';
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      config: { Env: ['PATH=/bin'], Cmd: opts.cmd ?? ['/bin/sh'], Labels: opts.labels ?? null },
      created,
      history: layers.map((_, i) => ({ created, created_by: `step ${i}`, ...(opts.comment ? { comment: opts.comment } : {}) })),
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: diffIds },
    }),
  );
  return { layers, config, id: sha256(config), diffIds, repoTags: opts.repoTags ?? [] };
}

/** A `docker save` archive (manifest.json, <id>.json, <dir>/layer.tar); layers may be gzip'd. */
export async function dockerSaveArchive(images: TestImage[], opts: { gzipLayers?: boolean; manifest?: unknown } = {}): Promise<Buffer> {
  const entries: LayerEntry[] = [];
  const manifest = images.map((image) => {
    const layerPaths = image.layers.map((layer, i) => {
      const dir = image.diffIds[i].slice(7);
      if (!entries.some((e) => e.name === `${dir}/layer.tar`)) {
        entries.push({ name: `${dir}/`, type: 'directory' }, { name: `${dir}/VERSION`, content: '1.0' });
        entries.push({ name: `${dir}/layer.tar`, content: opts.gzipLayers ? gzipSync(layer) : layer });
      }
      return `${dir}/layer.tar`;
    });
    entries.push({ name: `${image.id.slice(7)}.json`, content: image.config });
    return { Config: `${image.id.slice(7)}.json`, RepoTags: image.repoTags.length > 0 ? image.repoTags : null, Layers: layerPaths };
  });
  entries.push({ name: 'manifest.json', content: JSON.stringify(opts.manifest ?? manifest) });
  return tarOf(entries);
}

/** An OCI image layout (oci-layout, index.json, blobs/sha256/...) with gzip'd layers. */
export async function ociLayoutArchive(image: TestImage, refName?: string): Promise<Buffer> {
  const entries: LayerEntry[] = [{ name: 'oci-layout', content: JSON.stringify({ imageLayoutVersion: '1.0.0' }) }];
  const blob = (data: Buffer) => {
    const digest = sha256(data);
    if (!entries.some((e) => e.name === `blobs/sha256/${digest.slice(7)}`)) entries.push({ name: `blobs/sha256/${digest.slice(7)}`, content: data });
    return { digest, size: data.length };
  };
  const layers = image.layers.map((l) => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...blob(gzipSync(l)) }));
  const config = { mediaType: 'application/vnd.oci.image.config.v1+json', ...blob(image.config) };
  const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config, layers }));
  const m = blob(manifest);
  const annotations = refName ? { 'io.containerd.image.name': refName } : undefined;
  entries.push({ name: 'index.json', content: JSON.stringify({ schemaVersion: 2, manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...m, ...(annotations ? { annotations } : {}) }] }) });
  return tarOf(entries);
}

/** The regular files of a tar, by name. */
export async function untar(data: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const ex = extract();
  ex.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c) => chunks.push(c as Buffer));
    stream.on('end', () => {
      if (header.type === 'file') files.set(header.name, Buffer.concat(chunks));
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ex.on('finish', resolve);
    ex.on('error', reject);
    ex.end(data);
  });
  return files;
}
