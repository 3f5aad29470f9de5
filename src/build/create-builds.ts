// The build area: POST /build's sessions over a context read into a staging folder of its own
// (swept at start of what an interrupted build left), and POST /build/prune. The daemon hands it
// the images and the step containers (build-ports.ts).
import path from 'node:path';
import type { Logger } from 'pino';
import type { FilterArgs } from '../lib/filters.js';
import type { ProgressSink, StreamSession } from '../lib/stream-session.js';
import { Staging } from '../store/staging.js';
import { parseBuildOptions, type BuildQuery } from './build-options.js';
import type { BuildContainers, BuildImages } from './build-ports.js';
import { BuildSession } from './builder/build-session.js';
import { openBuildContext } from './context/build-context.js';
import { readDockerfile } from './dockerfile/read-dockerfile.js';
import type { EventBus } from '../events/event-bus.js';

export interface BuildsDeps {
  dataRoot: string;
  log: Logger;
  events: EventBus;
  images: BuildImages;
  containers: BuildContainers;
}

/** The filters `docker builder prune` may send (dockerd's buildkit cache filters). */
const PRUNE_FILTERS = new Set(['until', 'id', 'parent', 'type', 'description', 'inuse', 'shared', 'private']);

export function createBuilds(deps: BuildsDeps) {
  const stagingDir = path.join(deps.dataRoot, 'staging', 'build');
  const staging = new Staging(stagingDir);
  const swept = staging.sweep();
  if (swept > 0) deps.log.info({ swept }, 'removed the contexts interrupted builds left');
  const api = {
    build(query: BuildQuery, registryConfig: string | undefined): StreamSession<ProgressSink> {
      const options = parseBuildOptions(query, registryConfig);
      return {
        async run({ out, input, signal }) {
          const context = await openBuildContext({
            stagingDir,
            body: input,
            remote: options.remote,
            dockerfile: options.dockerfile,
            signal,
            // a remote context's download, as dockerd shows it
            onDownloadProgress: (current, total) => void out.progress('Downloading context', options.remote, current, total),
          });
          try {
            const dockerfile = readDockerfile(context.dockerfileName ?? 'Dockerfile', Buffer.from(context.dockerfileText));
            await new BuildSession({ images: deps.images, containers: deps.containers, stagingDir }, options, context, dockerfile, out, signal).run();
          } finally {
            // the answer need not wait for the context's files to go
            context.close().catch((err: unknown) => deps.log.warn({ err }, 'removing a build context failed'));
          }
        },
      };
    },
    prune(opts: { all: boolean; keepStorageBytes: number; filters: FilterArgs }) {
      opts.filters.validate(PRUNE_FILTERS);
      // the classic builder's cache is its images, which image prune removes: nothing here, as dockerd's
      deps.events.publish('builder', 'prune', { id: '', attributes: { reclaimed: '0' } });
      return { cachesDeleted: null, reclaimedBytes: 0 };
    },
  };
  return { api };
}
