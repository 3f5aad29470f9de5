// POST /images/load: Docker's save format or an OCI layout, read from the session's input. The
// archive is staged whole first, so its layers can be read in the manifest's order; a "Loaded
// image" line per name (or per ID of an unnamed image) is written once every image is in.
import type { EventBus } from '../events/event-bus.js';
import { invalidParameter } from '../errors.js';
import type { ProgressSink, StreamSession } from '../lib/stream-session.js';
import type { Staging } from '../store/staging.js';
import { StagedArchive } from './archive/staged-archive.js';
import { isDigest, sha256Digest, type Digest } from './digest.js';
import { parseImageConfig } from './image-config.js';
import type { ImageStore } from './image-store.js';
import { familiarString, parseNormalizedReference, withDefaultTag } from './reference.js';

export function imageLoad(deps: { store: ImageStore; staging: Staging; events: EventBus }): StreamSession<ProgressSink> {
  const { store, staging, events } = deps;
  return {
    async run({ out, input, signal }) {
      if (input === undefined) throw new Error('a load reads its archive from the session input');
      const lines: string[] = [];
      await store.withLease(async (lease) => {
        const stage = staging.newDir('load');
        try {
          const archive = await StagedArchive.stage(input, stage, signal);
          for (const m of readManifests(archive)) {
            const configBytes = archive.read(m.config);
            const id = sha256Digest(configBytes);
            const config = parseImageConfig(configBytes);
            if (config.rootfs.diff_ids.length !== m.layers.length) {
              throw invalidParameter(`invalid image archive: ${m.config} names ${config.rootfs.diff_ids.length} layers, the manifest ${m.layers.length}`);
            }
            let parent: Digest | null = null;
            for (const [i, diffId] of config.rootfs.diff_ids.entries()) {
              const source = { open: () => archive.open(m.layers[i]), localFile: () => archive.localFile(m.layers[i]) };
              parent = (await store.addLayer(lease, parent, diffId, source, signal)).chainId;
            }
            await store.commitImage(lease, id, configBytes, config);
            const refs = m.repoTags.map((t) => withDefaultTag(parseNormalizedReference(t)));
            await store.name(id, refs);
            events.publish('image', 'load', { id, attributes: { name: id } });
            if (refs.length === 0) lines.push(`Loaded image ID: ${id}\n`);
            for (const r of refs) lines.push(`Loaded image: ${familiarString(r)}\n`);
          }
        } finally {
          staging.discard(stage);
        }
      });
      for (const line of lines) await out.stream(line);
    },
  };
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
