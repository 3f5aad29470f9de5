// The Container routes' backend: the container service, with the API version's behaviours handed
// to create's normalization, and the paths and sizes inspect and list show.
import path from 'node:path';
import type { ContainerBackend, ContainerView } from '../api/routes/container/backend.js';
import type { AttachTarget } from '../api/routes/container/streams-backend.js';
import type { CreateLimits } from '../container/config/normalize-create.js';
import { validateContainerName } from '../container/config/container-name.js';
import { decodeCreateBody } from '../container/config/create-body.js';
import { normalizeCreate } from '../container/config/normalize-create.js';
import { ContainerArchive } from '../container/archive/container-archive.js';
import { runAttach } from '../container/attach/attach-session.js';
import { parseDetachKeys } from '../container/attach/detach-keys.js';
import { readContainerLog } from '../container/logs/container-log.js';
import { HOSTNAME_FILE, HOSTS_FILE, RESOLV_CONF_FILE } from '../container/spec/etc-files.js';
import { selectContainers } from '../container/container-filters.js';
import type { ContainerPaths } from '../container/container-paths.js';
import type { ContainerRecord } from '../container/container-record.js';
import { hasProcess } from '../container/container-state.js';
import type { ContainerService } from '../container/container-service.js';
import { conflict, notImplemented } from '../errors.js';
import type { ImageLookup } from '../image/create-images.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { directorySizeBytes } from '../lib/directory-size.js';
import type { FilterArgs } from '../lib/filters.js';
import { negativeLabelMatch, untilMillis } from '../lib/prune-filters.js';
import { containerControlBackend } from './container-control-backend.js';

export interface ContainerBackendDeps {
  service: ContainerService;
  images: ImageLookup;
  rootfs: RootfsStore;
  paths: ContainerPaths;
  limits: CreateLimits;
  dataRoot: string;
  attachSocketPath: (id: string) => string;
  /** the exec instances of a container that have not ended */
  execIdsOf: (id: string) => string[];
}

export function containerBackend(deps: ContainerBackendDeps): ContainerBackend {
  const { service, images, rootfs, paths } = deps;
  const archive = new ContainerArchive({ rootfs, get: (ref) => service.get(ref), publish: (id, action) => service.publishEvent(id, action) });

  const view = (record: ContainerRecord, withSize: boolean): ContainerView => {
    const dir = paths.dir(record.id);
    const upper = rootfs.upperDir(record.id);
    const v: ContainerView = {
      record,
      logPath: paths.log(record.id),
      hostnamePath: path.join(dir, HOSTNAME_FILE),
      hostsPath: path.join(dir, HOSTS_FILE),
      resolvConfPath: path.join(dir, RESOLV_CONF_FILE),
      execIds: deps.execIdsOf(record.id),
      graphDriver: {
        lowerDir: rootfs.get(record.id)?.lowerDirs.join(':') ?? '',
        mergedDir: rootfs.mergedDir(record.id),
        upperDir: upper,
        workDir: path.join(path.dirname(upper), 'work'),
      },
    };
    if (withSize) {
      v.sizeRw = directorySizeBytes(upper);
      let imageBytes = 0;
      try {
        imageBytes = images.get(record.image).sizeBytes;
      } catch {
        // the image was deleted with force: its layers remain, uncounted
      }
      v.sizeRootFs = v.sizeRw + imageBytes;
    }
    return v;
  };

  const target = (r: ContainerRecord): AttachTarget => ({
    id: r.id,
    logPath: paths.log(r.id),
    tty: r.config.Tty === true,
    attachSocketPath: deps.attachSocketPath(r.id),
    ended: service.currentOrNextRunEnded(r.id),
    started: service.runStarted(r.id),
    openStdin: r.config.OpenStdin === true,
    stdinOnce: r.config.StdinOnce === true,
    running: hasProcess(r.state.status),
  });

  return {
    async create({ body, name, api }) {
      // dockerd's 400 for an empty body comes before the image is looked up
      const imageRef = decodeCreateBody(body).config.Image ?? '';
      return service.create({
        name: name === undefined ? undefined : validateContainerName(name),
        imageRef,
        normalize: (image) => {
          const normalized = normalizeCreate({ body, api, image: image?.config.config ?? null, limits: deps.limits, dataRoot: deps.dataRoot });
          return normalized;
        },
      });
    },
    inspect: (ref, { size }) => view(service.get(ref), size),
    list({ all, limit, size, filters }: { all: boolean; limit: number; size: boolean; filters: FilterArgs }) {
      const selected = selectContainers(service.list(), {
        all,
        limit,
        filters,
        resolve: (ref) => service.get(ref),
        imageIds: (ref) => {
          try {
            return [images.get(ref).id];
          } catch {
            return [];
          }
        },
      });
      return selected.map((r) => view(r, size));
    },
    start: (ref) => service.start(ref),
    stop: (ref, t) => service.stop(ref, t),
    restart: (ref, t) => service.restart(ref, t),
    kill: (ref, signal) => service.kill(ref, signal),
    pause: (ref) => service.pause(ref),
    unpause: (ref) => service.unpause(ref),
    resize: (ref, h, w) => service.resize(ref, h, w),
    wait: (ref, condition) => service.wait(ref, condition),
    rename: (ref, name) => service.rename(ref, validateContainerName(name)),
    remove: (ref, opts) => service.remove(ref, opts),
    prune(filters) {
      filters.validate(new Set(['until', 'label', 'label!']));
      const until = filters.values('until').map(untilMillis);
      return service.prune(
        (r) =>
          filters.matchKeyValues('label', r.config.Labels ?? {}) &&
          !negativeLabelMatch(filters.values('label!'), r.config.Labels ?? {}) &&
          until.every((ms) => Date.parse(r.created) < ms),
        (r) => directorySizeBytes(rootfs.upperDir(r.id)),
      );
    },
    attachTarget(ref) {
      const r = service.get(ref);
      if (r.state.status === 'paused') throw conflict('You cannot attach to a paused container, unpause it first');
      if (r.state.status === 'restarting') throw conflict('You cannot attach to a restarting container, wait until it is running');
      return target(r);
    },
    logTarget(ref) {
      const r = service.get(ref);
      // the log is still kept (attach follows it), but as with dockerd, a `none` driver has nothing to read
      if (r.hostConfig.LogConfig?.Type === 'none') throw notImplemented('configured logging driver does not support reading');
      return target(r);
    },
    detachKeys: (spec) => parseDetachKeys(spec),
    attach: (t, session) => runAttach({ container: { ...t, stdinOpen: t.openStdin }, ...session }),
    readLog: (t, opts) => readContainerLog(t.logPath, opts),
    attached: (id) => service.publishEvent(id, 'attach'),
    detached: (id) => service.publishEvent(id, 'detach'),
    statPath: (ref, p) => archive.statPath(ref, p),
    archivePath: (ref, p) => archive.archivePath(ref, p),
    extractToDir: (ref, req) => archive.extractToDir(ref, req),
    exportContainer: (ref) => archive.export(ref),
    changes: (ref) => archive.changes(ref),
    ...containerControlBackend({ service, paths, limits: deps.limits }),
  };
}
