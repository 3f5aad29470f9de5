// What the build routes need of the build area.
import type { BuildOptions } from '../../../build/build-options.js';
import type { FilterArgs } from '../../../lib/filters.js';
import type { ProgressSink, StreamSession } from '../../../lib/stream-session.js';

export interface BuildBackend {
  /** Checks the query and headers (400s); the build, to run on the request's body. */
  build(query: { get(name: string): string | null; getAll(name: string): string[] }, registryConfig: string | undefined): StreamSession<ProgressSink>;
  /** dockerd's null: nothing deleted */
  prune(opts: { all: boolean; keepStorageBytes: number; filters: FilterArgs }): { cachesDeleted: string[] | null; reclaimedBytes: number };
}

export type { BuildOptions };
