// GET /images/{name}/get and /images/get: every name is resolved first (so a missing one is a 404
// before the first byte), then the session streams Docker's save format. A bare repository name
// saves all its tags.
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EventBus } from '../events/event-bus.js';
import type { StreamSession } from '../lib/stream-session.js';
import { writeSaveArchive } from './archive/save-archive.js';
import type { Digest } from './digest.js';
import type { ImageStore } from './image-store.js';
import { familiarString, formatReference, isIdReference, parseNormalizedReference, repositoryOf, withDefaultTag, type ImageReference } from './reference.js';

export function imageSave(deps: { store: ImageStore; events: EventBus }, names: string[]): StreamSession<Writable> {
  const { store, events } = deps;
  const selected = new Map<Digest, Set<string>>();
  const select = (id: Digest, tag?: string) => {
    const tags = selected.get(id) ?? new Set<string>();
    if (tag !== undefined) tags.add(tag);
    selected.set(id, tags);
  };
  for (const name of names) {
    const whole = repositoryRefs(store, name);
    if (whole.length > 0) {
      for (const [ref, id] of whole) select(id, familiarString(parseNormalizedReference(ref)));
      continue;
    }
    const id = store.resolveId(name);
    if (isIdReference(name, id)) select(id);
    else select(id, familiarString(withDefaultTag(parseNormalizedReference(name))));
  }
  const images = [...selected].map(([id, tags]) => ({ id, configBytes: store.configBytes(id), config: store.config(id), repoTags: [...tags] }));
  return {
    async run({ out, signal }) {
      for (const image of images) events.publish('image', 'save', { id: image.id, attributes: { name: image.id } });
      const archive = writeSaveArchive(images, { sizeBytes: (d) => store.blobSizeBytes(d), open: (d) => store.openBlob(d) }, signal);
      await pipeline(archive, out, { signal });
    },
  };
}

/** For a bare repository name (busybox, not busybox:1 or an ID), every tag of it and its image. */
function repositoryRefs(store: ImageStore, name: string): Array<[string, Digest]> {
  let ref: ImageReference;
  try {
    ref = parseNormalizedReference(name);
  } catch {
    return [];
  }
  if (ref.tag !== undefined || ref.digest !== undefined) return [];
  const repo = formatReference(ref);
  return store.references().filter(([x]) => repositoryOf(x) === repo && !x.includes('@'));
}
