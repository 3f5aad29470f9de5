// A ~100 MiB image in `docker save` form, made by the benchmark: three uncompressed layers of
// random (incompressible) files, its config and manifest.json. Each layer is built in memory to learn
// its size and diff ID; the archive goes to a file, so that it is never held in memory whole.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { pack as tarPack, type Header, type Pack } from 'tar-stream';

export const BIG_IMAGE_TAG = 'bench/big:latest';

const LAYERS = 3;
const DIRS_PER_LAYER = 5;
const FILES_PER_DIR = 50;
const LAYER_CONTENT_BYTES = 33 * 1024 * 1024;
// File sizes cycle through these fractions of the mean, whose own mean is 1.
const FILE_SIZE_FACTORS = [0.5, 0.75, 1, 1.25, 1.5];
const CREATED = '2024-01-01T00:00:00Z';
const MTIME = new Date(CREATED);

type EntryHeader = Partial<Header> & Pick<Header, 'name'>;

export interface BigImageArchive {
  path: string;
  tag: string;
  sizeBytes: number;
  /** The layer tars' bytes together: a saved copy of the image cannot be smaller. */
  layerBytes: number;
}

export async function writeBigImageArchive(dir: string): Promise<BigImageArchive> {
  const archivePath = path.join(dir, 'big-image.tar');
  const archive = tarPack();
  const filled = fillArchive(archive).catch((err: unknown) => {
    archive.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  });
  const [layerBytes] = await Promise.all([filled, copyTo(archive, createWriteStream(archivePath))]);
  // On disk before the first load, so that writing it back does not slow whichever engine goes first.
  const file = await open(archivePath, 'r+');
  await file.sync().finally(() => file.close());
  return { path: archivePath, tag: BIG_IMAGE_TAG, sizeBytes: (await stat(archivePath)).size, layerBytes };
}

/** The archive's entries, as `docker save` lays them out; returns the layer tars' bytes together. */
async function fillArchive(archive: Pack): Promise<number> {
  let layerBytes = 0;
  const diffIds: string[] = [];
  const layerPaths: string[] = [];
  for (let layer = 1; layer <= LAYERS; layer++) {
    const layerTar = await buildLayer(layer);
    const hex = sha256(layerTar);
    diffIds.push(`sha256:${hex}`);
    layerPaths.push(`${hex}/layer.tar`);
    layerBytes += layerTar.byteLength;
    await addEntry(archive, { name: `${hex}/`, type: 'directory', mtime: MTIME });
    await addEntry(archive, { name: `${hex}/layer.tar`, mtime: MTIME }, layerTar);
  }
  const config = Buffer.from(JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    created: CREATED,
    config: { Cmd: ['/bin/sh'] },
    history: diffIds.map((_, i) => ({ created: CREATED, created_by: `layer ${i + 1}` })),
    rootfs: { type: 'layers', diff_ids: diffIds },
  }));
  const configName = `${sha256(config)}.json`;
  await addEntry(archive, { name: configName, mtime: MTIME }, config);
  const manifest = [{ Config: configName, RepoTags: [BIG_IMAGE_TAG], Layers: layerPaths }];
  await addEntry(archive, { name: 'manifest.json', mtime: MTIME }, Buffer.from(JSON.stringify(manifest)));
  archive.finalize();
  return layerBytes;
}

/** One layer's tar: DIRS_PER_LAYER directories of FILES_PER_DIR random files under layer<N>/. */
async function buildLayer(layer: number): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  // streamx types its chunks as unknown; a pack emits Buffers
  pack.on('data', (chunk) => void chunks.push(chunk as Buffer));
  const ended = once(pack, 'end');
  const meanFileBytes = Math.round(LAYER_CONTENT_BYTES / (DIRS_PER_LAYER * FILES_PER_DIR));
  const top = `layer${layer}`;
  await addEntry(pack, { name: `${top}/`, type: 'directory', mtime: MTIME });
  for (let d = 1; d <= DIRS_PER_LAYER; d++) {
    await addEntry(pack, { name: `${top}/dir${d}/`, type: 'directory', mtime: MTIME });
    for (let f = 1; f <= FILES_PER_DIR; f++) {
      const sizeBytes = Math.round(meanFileBytes * FILE_SIZE_FACTORS[f % FILE_SIZE_FACTORS.length]);
      await addEntry(pack, { name: `${top}/dir${d}/file${f}.bin`, mtime: MTIME }, randomBytes(sizeBytes));
    }
  }
  pack.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** Adds an entry and waits until the pack has taken it, which is what bounds its buffering. */
function addEntry(pack: Pack, header: EntryHeader, body?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null): void => (err ? reject(err) : resolve());
    if (body) pack.entry(header, body, done);
    else pack.entry(header, done);
  });
}

/** Writes the pack's output to the file, waiting for 'drain', and resolves once the file is closed. */
async function copyTo(pack: Pack, file: WriteStream): Promise<void> {
  try {
    for await (const chunk of pack) {
      if (!file.write(chunk)) await once(file, 'drain');
    }
  } catch (err) {
    file.destroy();
    throw err;
  }
  file.end();
  await once(file, 'close');
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
