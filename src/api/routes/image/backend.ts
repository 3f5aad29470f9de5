// What the Image routes need from the engine.
import type { Writable } from 'node:stream';
import type { Digest } from '../../../image/digest.js';
import type { ImportOptions } from '../../../image/image-import.js';
import type { DeleteItem, PruneResult } from '../../../image/image-removal.js';
import type { HistoryRow, Image } from '../../../image/image-store.js';
import type { PullRequest } from '../../../image/registry/image-pull.js';
import type { PushRequest } from '../../../image/registry/image-push.js';
import type { FilterArgs } from '../../../lib/filters.js';

/** A registry operation's request as the route has it: the X-Registry-Auth header undecoded, for the image area to read. */
export type RegistryRequest<T extends { auth: unknown }> = Omit<T, 'auth'> & { registryAuth: string | undefined };
import type { ProgressSink, StreamSession } from '../../../lib/stream-session.js';

export interface ImageBackend {
  /** The images the list filters keep, newest first; intermediate images (untagged, with children) only with `all`. */
  list(filters: FilterArgs, all: boolean): Image[];
  get(refOrId: string): Image;
  history(refOrId: string): HistoryRow[];
  tag(refOrId: string, repo: string, tag: string): Promise<void>;
  remove(refOrId: string, opts: { force: boolean; prune: boolean }): Promise<DeleteItem[]>;
  prune(filters: FilterArgs): Promise<PruneResult>;
  /** A load of the archive the session reads from its input. */
  load(): StreamSession<ProgressSink>;
  /** Checks an import's parameters; the session imports from its input ("-") or the URL. */
  importImage(opts: ImportOptions): StreamSession<ProgressSink>;
  /** Resolves every name (a missing one is a 404 before the head); the session writes the archive. */
  save(names: string[]): StreamSession<Writable>;
  /** Checks the reference (a 400 before the head); the session resolves the manifest (its failures still statuses) and streams the pull. */
  pull(req: RegistryRequest<PullRequest>): StreamSession<ProgressSink>;
  /** Finds the image (a 404 before the head); the session streams the push. */
  push(req: RegistryRequest<PushRequest>): StreamSession<ProgressSink>;
  usage(): { layersSizeBytes: number; sharedSizeBytes: Map<Digest, number> };
  /** Where an image's layers live, for GraphDriver.Data. */
  layerDirs(image: Image): string[];
}
