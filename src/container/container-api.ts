// The container operations the API serves, over the area's parts: create decodes and normalizes
// the body once and makes the container through the service's typed entry point; inspect and
// list show views; the streams (attach, logs, stats, archives) come back as sessions, checked.
import type { Logger } from 'pino';
import type { Writable } from 'node:stream';
import type { FilterArgs } from '../lib/filters.js';
import type { StreamSession } from '../lib/stream-session.js';
import type { ContainerArchive, ExtractRequest } from './archive/container-archive.js';
import { attachContainer, type AttachRequest, type AttachSession } from './attach/container-attach.js';
import { validateContainerName } from './config/container-name.js';
import type { CreateBehaviours } from './config/create-behaviours.js';
import { decodeCreateBody } from './config/create-body.js';
import { removeLink } from './container-links.js';
import type { CreateLimits } from './config/create-limits.js';
import { normalizeCreate } from './config/normalize-create.js';
import { containerControl } from './container-control.js';
import type { ContainerEvents } from './container-events.js';
import { pruneFilter, selectContainers } from './container-filters.js';
import type { ContainerService, WaitCondition, WaitResult } from './container-service.js';
import type { ContainerStore } from './container-store.js';
import { containerView, type ContainerView, type ContainerViewDeps } from './container-view.js';
import { containerLogs, type LogsRequest, type LogsSession } from './logs/container-logs.js';
import { directorySizeBytes } from '../lib/directory-size.js';
import type { ContainerMetrics } from './container-metrics.js';

export interface ContainerApiDeps extends ContainerViewDeps {
  service: ContainerService;
  store: ContainerStore;
  events: ContainerEvents;
  archive: ContainerArchive;
  limits: CreateLimits;
  dataRoot: string;
  metrics: ContainerMetrics;
  log: Logger;
  /** the parent cgroup of containers that name none; the default's when undefined */
  cgroupParent?: string;
}

export function containerApi(deps: ContainerApiDeps) {
  const { service, images } = deps;
  const view = (record: ContainerView['record'], withSize: boolean) => containerView(deps, record, withSize);

  return {
    async create(req: { body: unknown; name: string | undefined; api: CreateBehaviours }): Promise<{ id: string; warnings: string[] }> {
      const done = deps.metrics.timeContainerAction('create');
      // dockerd's 400 for an empty body comes before the name and the image are looked at
      const body = decodeCreateBody(req.body);
      const name = req.name === undefined ? undefined : validateContainerName(req.name);
      const image = images.get(body.config.Image ?? '');
      const { warnings, ...normalized } = normalizeCreate({ body, api: req.api, image: image.config.config ?? null, limits: deps.limits, dataRoot: deps.dataRoot });
      // dockerd keeps another container's network by its full ID (one not found is its start's error)
      const joined = /^container:(.+)$/.exec(normalized.hostConfig.NetworkMode ?? '')?.[1];
      const other = joined === undefined ? undefined : deps.store.find(joined);
      if (other !== undefined) normalized.hostConfig.NetworkMode = `container:${other.id}`;
      const id = await service.create({ name, image: { id: image.id, topLayer: image.topLayer, layerDirs: images.layerDirs(image) }, ...normalized });
      done();
      return { id, warnings };
    },
    inspect: (ref: string, opts: { size: boolean }): ContainerView => view(service.get(ref), opts.size),
    list(q: { all: boolean; limit: number; size: boolean; filters: FilterArgs }): ContainerView[] {
      const selected = selectContainers(service.list(), {
        ...q,
        resolve: (ref) => service.get(ref),
        imageIds: (ref) => {
          try {
            return [images.get(ref).id];
          } catch {
            return [];
          }
        },
      });
      return selected.map((r) => view(r, q.size));
    },
    async start(ref: string): Promise<void> {
      const done = deps.metrics.timeContainerAction('start');
      await service.start(ref);
      done();
    },
    stop: (ref: string, timeoutS: number | undefined) => service.stop(ref, timeoutS),
    restart: (ref: string, timeoutS: number | undefined) => service.restart(ref, timeoutS),
    kill: (ref: string, signal: string | undefined) => service.kill(ref, signal),
    pause: (ref: string) => service.pause(ref),
    unpause: (ref: string) => service.unpause(ref),
    resize: (ref: string, height: number, width: number) => service.resize(ref, height, width),
    wait: (ref: string, condition: WaitCondition): Promise<WaitResult> => service.wait(ref, condition),
    rename: (ref: string, name: string) => service.rename(ref, validateContainerName(name)),
    async remove(ref: string, opts: { force: boolean; removeVolumes: boolean; removeLink: boolean }): Promise<void> {
      if (opts.removeLink) {
        const { parent, links } = removeLink((r) => deps.store.find(r), ref);
        await service.setLinks(parent.id, links);
        return;
      }
      const done = deps.metrics.timeContainerAction('delete');
      await service.remove(service.get(ref).id, opts);
      done();
    },
    prune(filters: FilterArgs): Promise<{ ids: string[]; reclaimedBytes: number }> {
      return service.prune(pruneFilter(filters), (r) => directorySizeBytes(deps.rootfs.upperDir(r.id)));
    },
    attach: (ref: string, req: AttachRequest): AttachSession => attachContainer(deps, ref, req),
    logs: (ref: string, req: LogsRequest): Promise<LogsSession> => containerLogs(deps, ref, req),
    statPath: (ref: string, path: string) => deps.archive.statPath(ref, path),
    archivePath: (ref: string, path: string) => deps.archive.archivePath(ref, path),
    extractToDir: (ref: string, req: ExtractRequest) => deps.archive.extractToDir(ref, req),
    exportContainer: (ref: string): Promise<StreamSession<Writable>> => deps.archive.export(ref),
    async changes(ref: string) {
      const done = deps.metrics.timeContainerAction('changes');
      const result = await deps.archive.changes(ref);
      done();
      return result;
    },
    ...containerControl(deps),
  };
}
