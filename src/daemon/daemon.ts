// The composition root: builds berth's parts from the configuration and wires them together.
// It owns no behaviour of its own beyond the order of starting and stopping.
import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { ApiServer } from '../api/server.js';
import { openListener, type Listener } from '../api/listeners.js';
import { Router } from '../api/router.js';
import { allRoutes } from '../api/routes/all-routes.js';
import { DEFAULT_SOCKET, effectiveLogLevel, listenAddresses, type DaemonConfig } from '../config/daemon-config.js';
import { EventBus } from '../events/event-bus.js';
import { createImages } from '../image/create-images.js';
import { startContainers } from './containers.js';
import { createContainerStore } from '../container/create-container-store.js';
import { createRootfs } from '../rootfs/create-rootfs.js';
import { loadEngineId } from '../system/engine-id.js';
import { SystemService } from '../system/system-service.js';
import { lockDataRoot } from './data-root-lock.js';
import { writePidfile } from './pidfile.js';

/** How long in-flight requests may run on after SIGTERM before they are cut. */
const SHUTDOWN_GRACE_MS = 5000;

export interface RunningDaemon {
  /** Applies the settings SIGHUP may change, and tells the event bus. */
  reload(config: DaemonConfig): void;
  stop(): Promise<void>;
}

export async function startDaemon(config: DaemonConfig, log: Logger): Promise<RunningDaemon> {
  // what has been set up so far, released in reverse order on a failed start or on stop
  const undo: Array<() => unknown> = [];
  const unwind = async () => {
    for (const step of undo.reverse()) await step();
  };
  let api: ApiServer | undefined;
  try {
    const lock = await lockDataRoot(config.dataRoot);
    undo.push(() => lock.release());
    // traversable but not listable: the default socket lives inside it, for its group to reach
    mkdirSync(config.execRoot, { recursive: true, mode: 0o711 });
    undo.push(writePidfile(config.pidfile));

    const engineId = loadEngineId(config.dataRoot);
    const events = new EventBus();
    const rootfs = createRootfs({ dataRoot: config.dataRoot, log });
    const records = createContainerStore({ dataRoot: config.dataRoot, execRoot: config.execRoot, rootfs });
    const images = createImages({ dataRoot: config.dataRoot, events, log, usage: records.usage });
    const containers = await startContainers({ config, images: images.store, rootfs, records, events, log });
    undo.push(() => containers.service.shutdown());
    const plainTcpHosts = config.tls === false ? listenAddresses(config).filter((h) => h.startsWith('tcp://')) : [];
    const system = new SystemService({
      engineId,
      dataRoot: config.dataRoot,
      events,
      settings: { debug: config.debug, labels: config.labels },
      inventories: [{ imageCount: () => images.inventory.count(), containerCounts: () => containers.service.counts() }],
      startupWarnings: plainTcpHosts.map((h) => `WARNING: API is accessible on ${h.replace('tcp://', 'http://')} without encryption.`),
    });

    api = new ApiServer(new Router(allRoutes({ system, image: images.api, container: containers.backend, exec: containers.execBackend })), log);
    const listeners: Listener[] = [];
    undo.push(() => listeners.forEach((l) => l.close()));
    const tlsEnabled = config.tls === true || config.tlsVerify;
    for (const address of listenAddresses(config)) {
      const listener = await openListener(address, {
        tls: { enabled: tlsEnabled, verify: config.tlsVerify, caFile: config.tlsCaCert, certFile: config.tlsCert, keyFile: config.tlsKey },
        plainTcpAllowed: config.tls === false,
        group: config.group,
        defaultSocket: DEFAULT_SOCKET,
        log,
      });
      listeners.push(listener);
      api.attach(listener.server);
      log.info({ address }, 'API listen on %s', address);
    }

    return {
      reload(next) {
        log.level = effectiveLogLevel(next);
        system.reload({ debug: next.debug, labels: next.labels });
        log.info({ debug: next.debug, labels: next.labels }, 'configuration reloaded');
      },
      async stop() {
        await api?.close(SHUTDOWN_GRACE_MS);
        await unwind();
      },
    };
  } catch (err) {
    await api?.close(0);
    await unwind();
    throw err;
  }
}
