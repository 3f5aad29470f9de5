// Wires the containers' parts together: their paths, runc, root filesystems, the runner, the
// records and the service, the images' knowledge of what containers use, and the routes' backend.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ContainerBackend } from '../api/routes/container/backend.js';
import { daemonCreateLimits } from '../container/config/create-limits.js';
import { ContainerRunner } from '../container/container-runner.js';
import { ContainerService } from '../container/container-service.js';
import type { ContainerRecord } from '../container/container-record.js';
import { hasProcess } from '../container/container-state.js';
import { ExecProcesses } from '../container/exec/exec-processes.js';
import { ExecService } from '../container/exec/exec-service.js';
import { watchHealth } from '../container/health/watch-health.js';
import { buildContainerSpec, shmDirOf, workingDirectory } from '../container/spec/build-spec.js';
import { LocalVolumes } from '../container/spec/local-volumes.js';
import type { ContainerLookup } from '../container/spec/namespaces.js';
import { resolveMountPoints } from '../container/spec/resolve-mounts.js';
import { copyImageContentToVolumes } from '../container/spec/volume-copy-up.js';
import type { DaemonConfig } from '../config/daemon-config.js';
import type { EventBus } from '../events/event-bus.js';
import type { ImageLookup } from '../image/create-images.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import type { ContainerRecords } from '../container/create-container-store.js';
import type { OciSpec } from '../runtime/oci-spec.js';
import { Runc } from '../runtime/runc.js';
import { resolveCommand } from '../runtime/tool-path.js';
import { containerBackend } from './container-backend.js';
import { execBackend } from './exec-backend.js';

export async function startContainers(deps: { config: DaemonConfig; images: ImageLookup; rootfs: RootfsStore; records: ContainerRecords; events: EventBus; log: Logger }) {
  const { config, images, rootfs, records, events, log } = deps;
  const { paths, store } = records;
  const runc = new Runc({ stateDir: paths.runcRoot, logDir: paths.runcLogDir });
  const volumes = new LocalVolumes(path.join(config.dataRoot, 'volumes'));
  const lookup: ContainerLookup = (ref) => {
    let r;
    try {
      r = store.resolve(ref);
    } catch {
      return undefined;
    }
    const s = r.state.status;
    return { id: r.id, pid: r.state.pid, running: hasProcess(r.state.status), restarting: s === 'restarting', shmPath: shmDirOf(paths.dir(r.id)), dir: paths.dir(r.id) };
  };
  const runcPath = resolveCommand('runc');
  const runner = new ContainerRunner({
    paths,
    rootfs,
    runc,
    runcPath,
    log,
    buildSpec: (record, rootfsPath) =>
      buildContainerSpec({
        id: record.id,
        config: record.config,
        hostConfig: record.hostConfig,
        rootfsPath,
        containerDir: paths.dir(record.id),
        mountPoints: record.mountPoints,
        lookup,
      }),
  });
  const service = new ContainerService({
    store,
    runner,
    images,
    rootfs,
    events,
    log,
    resolveMounts: async (record) => {
      const mountPoints = await resolveMountPoints({
        config: record.config,
        hostConfig: record.hostConfig,
        volumes,
        containers: (ref) => {
          try {
            return store.resolve(ref);
          } catch {
            return undefined;
          }
        },
        daemonRoot: config.dataRoot,
      });
      // as dockerd at create: the working directory is made (a file in its place is refused), and a
      // new volume over an image directory starts with the image's files (unless nocopy)
      if (record.config.WorkingDir || mountPoints.some((m) => m.copyData)) {
        const root = await rootfs.mount(record.id);
        try {
          workingDirectory(root, record.config.WorkingDir);
          await copyImageContentToVolumes(root, mountPoints);
        } finally {
          await rootfs.unmount(record.id);
        }
      }
      return mountPoints;
    },
    watchHealth: (record, onChange) => watchHealth({ record, probe: execs.healthProbe(record.id), onChange }),
  });
  const execs: ExecService = new ExecService({
    containers: {
      get: (ref): ContainerRecord => service.get(ref),
      byId: (id) => store.byId(id),
      publish: (id, action, attributes) => service.publishEvent(id, action, attributes),
      onRunEnded: (listener) => service.onRunEnded(listener),
      spec: async (id) => JSON.parse(await readFile(path.join(paths.bundle(id), 'config.json'), 'utf8')) as OciSpec,
      rootfsPath: (id) => rootfs.mergedDir(id),
    },
    processes: new ExecProcesses({ runc, runcPath, runcRoot: paths.runcRoot, socketDir: paths.socketDir, execsDir: paths.execsDir }),
    log,
  });
  await service.recover(records.incomplete);
  const backend: ContainerBackend = containerBackend({
    service,
    images,
    rootfs,
    paths,
    limits: daemonCreateLimits(),
    dataRoot: config.dataRoot,
    attachSocketPath: (id) => runner.attachSocketPath(id),
    execIdsOf: (id) => execs.idsOf(id),
  });
  return { service, backend, execBackend: execBackend(execs) };
}
