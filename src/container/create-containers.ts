// The containers area, wired: runc and conmon under the runner, the service and its exec
// instances (health checks run as execs), recovery of what ran while the daemon was away, and the
// operations the API serves. The records come loaded (create-container-store.ts), because images
// must know before this who uses them.
import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { Runc } from '../runtime/runc.js';
import { logSinks, logWriting, type LogForwarder } from './logs/log-drivers.js';
import { LogDrain } from './logs/log-drain.js';
import { LOG_DRIVERS } from './logs/log-options.js';
import { openLogPipe } from '../runtime/log-pipe.js';
import { resolveCommand } from '../runtime/tool-path.js';
import { ContainerArchive } from './archive/container-archive.js';
import { daemonCreateLimits } from './config/create-limits.js';
import { mergeLogConfig } from './config/validate-host-options.js';
import { containerApi } from './container-api.js';
import { stepContainers } from './step-containers.js';
import { taskContainers } from './task-containers.js';
import { commitContainer, type CommitRequest } from './container-commit.js';
import { ContainerEvents } from './container-events.js';
import type { ContainerImages } from './container-images.js';
import { containerInventory } from './container-inventory.js';
import { ContainerRunner } from './container-runner.js';
import { ContainerService } from './container-service.js';
import type { ContainerMetrics } from './container-metrics.js';
import type { HealthProbe } from './health/health-monitor.js';
import type { ContainerRecords } from './create-container-store.js';
import { execApi } from './exec/exec-api.js';
import { ExecProcesses } from './exec/exec-processes.js';
import { ExecService } from './exec/exec-service.js';
import { joinableContainers } from './joinable-containers.js';
import { RunSignals } from './run-signals.js';
import { defaultBridgeAddress, type ContainerNetworks } from './container-networks.js';
import { volumeMountsOf, type ContainerVolumes } from './container-volumes.js';
import { hasProcess } from './container-state.js';
import { linkedContainers } from './container-links.js';
import { networkConnectApi } from './container-network-connect.js';
import type { ContainerRecord } from './container-record.js';
import { networkedContainer } from './networked-container.js';

export interface ContainersDeps {
  dataRoot: string;
  events: EventBus;
  log: Logger;
  records: ContainerRecords;
  rootfs: RootfsStore;
  images: ContainerImages;
  networks: ContainerNetworks;
  volumes: ContainerVolumes;
  metrics: ContainerMetrics;
  /** the daemon's log-driver and log-opts, checked here as dockerd checks them at start */
  logConfig: { Type: string; Config: Record<string, string> };
  /** the parent cgroup of containers that name none (cgroup-parent); the default's when empty */
  cgroupParent?: string;
}

export async function createContainers(deps: ContainersDeps) {
  const { dataRoot, rootfs, images, log } = deps;
  const { paths, store } = deps.records;
  const runc = new Runc({ stateDir: paths.runcRoot, logDir: paths.runcLogDir });
  const runcPath = resolveCommand('runc');
  const events = new ContainerEvents(deps.events, store);
  const runs = new RunSignals();
  const { networks, volumes } = deps;
  const links = (record: ContainerRecord) => linkedContainers({ find: (ref) => store.find(ref), defaultBridgeAddress: (id) => defaultBridgeAddress(networks, id) }, record);
  const cgroupParent = deps.cgroupParent || undefined;
  const runner = new ContainerRunner({ paths, rootfs, runc, runcPath, log, lookup: joinableContainers(store, paths), networks, volumes, links, cgroupParent });
  const processes = new ExecProcesses({ runc, runcPath, runcRoot: paths.runcRoot, socketDir: paths.socketDir, execsDir: paths.execsDir });
  const execs = new ExecService({ store, runs, events, runner, rootfs, processes, log });
  const drainLogs = (record: ContainerRecord, forwarder?: LogForwarder) => {
    const bundleDir = paths.bundle(record.id);
    let pipe;
    try {
      pipe = openLogPipe(bundleDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        void forwarder?.close();
        return undefined;
      }
      throw err;
    }
    // the options were checked when the run started
    const driverLog = paths.log(record);
    const sinks = logSinks(driverLog.file, logWriting(record, driverLog.logPath, { running: true }), forwarder, log);
    return new LogDrain({ pipe, bundleDir, sinks, log });
  };
  const { metrics } = deps;
  const health = { healthProbe: (id: string) => countedProbe(execs.healthProbe(id), metrics) };
  const service = new ContainerService({ store, runner, rootfs, volumes, events, runs, health, log, drainLogs });
  // the mounts of runs that were live come back first, so that the ends recovery finds unmount them
  await volumes.restoreMounts(store.all().filter((r) => hasProcess(r.state.status)).map((r) => ({ containerId: r.id, mounts: volumeMountsOf(r) })));
  await service.recover(deps.records.incomplete);
  // what ran on while berthd was away keeps its networking; the rest of what networks hold goes
  await networks.reconcile(service.list().filter((r) => hasProcess(r.state.status)).map(networkedContainer));

  const viewDeps = { paths, rootfs, images, networks, execIdsOf: (id: string) => execs.idsOf(id) };
  const archive = new ContainerArchive({ rootfs, store, events });
  const limits = daemonCreateLimits(mergeLogConfig(deps.logConfig));
  return {
    api: containerApi({ ...viewDeps, service, store, events, archive, limits, dataRoot, metrics, log, cgroupParent }),
    execApi: execApi(execs),
    networkConnectApi: networkConnectApi(service, networks),
    commitApi: {
      async commit(req: CommitRequest) {
        const done = metrics.timeContainerAction('commit');
        const result = await commitContainer({ service, rootfs, images, events }, req);
        done();
        return result;
      },
    },
    /** the typed create path, for whatever makes containers besides the API */
    service,
    /** a build's step containers */
    stepContainers: stepContainers({ service, paths, events, rootfs, images, limits, dataRoot }),
    /** a swarm's task containers, for the node's agent */
    taskContainers: taskContainers({ service, events: deps.events, store, images, networks, paths, limits, dataRoot, log }),
    inventory: containerInventory(store, viewDeps),
    /** the log drivers containers can use, for /info */
    logDrivers: LOG_DRIVERS,
    /** Stops watching runs; the containers keep running under conmon. */
    shutdown: () => service.shutdown(),
  };
}

/** A health probe that counts its runs, and as failed those that could not run or were cut by their timeout (as dockerd counts them). */
function countedProbe(probe: HealthProbe, metrics: ContainerMetrics): HealthProbe {
  return async (cmd, timeoutMs, signal) => {
    try {
      const result = await probe(cmd, timeoutMs, signal);
      metrics.healthCheck(signal.aborted);
      return result;
    } catch (err) {
      metrics.healthCheck(true);
      throw err;
    }
  };
}
