// The composition root: calls each area's factory in the order their dependencies ask for, hands
// their services to the API, and owns what belongs to the process: the data root's lock, the pid
// file, the listeners, and the order of starting and stopping. It holds no rule of any area.
import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import { createApiServer, type ApiServer } from '../api/server.js';
import { createBuilds } from '../build/create-builds.js';
import { DEFAULT_SOCKET, effectiveLogLevel, listenAddresses, type DaemonConfig } from '../config/daemon-config.js';
import { createContainerStore } from '../container/create-container-store.js';
import { createContainers } from '../container/create-containers.js';
import { EventBus } from '../events/event-bus.js';
import { createMetrics } from '../metrics/create-metrics.js';
import { createImages } from '../image/create-images.js';
import { createNetworks } from '../network/create-networks.js';
import { createRootfs } from '../rootfs/create-rootfs.js';
import { createCommandRunner } from '../runtime/create-command-runner.js';
import { createSwarm } from '../swarm/create-swarm.js';
import { createSystem } from '../system/create-system.js';
import { createVolumes } from '../volume/create-volumes.js';
import { lockDataRoot } from './data-root-lock.js';
import { writePidfile } from './pidfile.js';
import { takeActivatedFds } from './socket-activation.js';

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
  // before any child process is spawned, so that none inherits systemd's variables
  const activatedFds = takeActivatedFds();
  try {
    // forked while berthd is small; after takeActivatedFds, so that it inherits none of them
    undo.push(createCommandRunner({ log }));
    const lock = await lockDataRoot(config.dataRoot);
    undo.push(() => lock.release());
    // traversable but not listable: the default socket lives inside it, for its group to reach
    mkdirSync(config.execRoot, { recursive: true, mode: 0o711 });
    undo.push(writePidfile(config.pidfile));

    const { dataRoot, execRoot } = config;
    const events = new EventBus();
    const metrics = createMetrics({ metricsAddr: config.metricsAddr, log });
    const rootfs = createRootfs({ dataRoot, log });
    // the records come before images, which must know at construction which containers use them
    const records = createContainerStore({ dataRoot, execRoot, rootfs });
    const registry = {
      settings: { insecureRegistries: config.insecureRegistries, mirrors: config.registryMirrors, certsDir: config.certsDir },
      maxConcurrentDownloads: config.maxConcurrentDownloads,
      maxConcurrentUploads: config.maxConcurrentUploads,
    };
    const images = createImages({ dataRoot, events, log, usage: records.usage, registry });
    const networks = await createNetworks({ dataRoot, execRoot, events, log, settings: { iptables: config.iptables, bip: config.bip, bridge: config.bridge, dns: config.dns } });
    undo.push(() => networks.shutdown());
    const volumes = await createVolumes({ dataRoot, events, log, users: records.usage.volumeUsers, pluginsDir: config.pluginsDir });
    const containers = await createContainers({ logConfig: { Type: config.logDriver, Config: config.logOpts }, cgroupParent: config.cgroupParent, dataRoot, events, log, records, rootfs, images: images.store, networks: networks.containers, volumes: volumes.containers, metrics: metrics.hooks });
    undo.push(() => containers.shutdown());
    const builds = createBuilds({ dataRoot, log, events, images: images.build, containers: containers.stepContainers });
    const swarm = await createSwarm({ dataRoot, execRoot, events, log, engineLabels: config.labels, etcdPorts: { client: config.swarmEtcdClientPort, peer: config.swarmEtcdPeerPort }, externalEtcd: { endpoints: config.swarmEtcdEndpoints, caFile: config.swarmEtcdCaCert, certFile: config.swarmEtcdCert, keyFile: config.swarmEtcdKey, prefix: config.swarmEtcdPrefix }, plugins: () => ({ log: containers.logDrivers, network: networks.drivers, volume: volumes.inventory.drivers() }), runtime: { ...containers.taskContainers, pull: images.tasks.ensure }, networking: networks.swarm, localNetworks: networks.find, nodePortRanges: { range: config.nodePortRange, dynamic: config.dynamicNodePortRange } });
    undo.push(() => swarm.shutdown());
    const system = await createSystem({ config, events, inventories: { images: images.inventory, containers: containers.inventory, volumes: volumes.inventory }, networkDrivers: networks.drivers, logDrivers: containers.logDrivers, swarm: { info: swarm.info } });

    undo.push(
      await metrics.serve({
        engine: system.engineFacts(),
        containerStates: () => containers.inventory.counts(),
        eventsPublished: () => events.publishedCount,
        eventSubscribers: () => events.subscriberCount,
      }),
    );

    api = createApiServer(
      {
        system: system.api,
        image: images.api,
        commit: containers.commitApi,
        container: containers.api,
        exec: containers.execApi,
        network: networks.api(swarm.networks),
        networkConnect: containers.networkConnectApi,
        volume: volumes.api,
        distribution: images.distribution,
        build: builds.api,
        swarm: swarm.api,
        debug: swarm.debug,
      },
      log,
      (r) => metrics.hooks.apiRequest(r),
    );
    const tlsEnabled = config.tls === true || config.tlsVerify;
    for (const address of listenAddresses(config)) {
      await api.listen(address, {
        tls: { enabled: tlsEnabled, verify: config.tlsVerify, caFile: config.tlsCaCert, certFile: config.tlsCert, keyFile: config.tlsKey },
        plainTcpAllowed: config.tls === false,
        group: config.group,
        defaultSocket: DEFAULT_SOCKET,
        activatedFds,
      });
    }

    return {
      reload(next) {
        log.level = effectiveLogLevel(next);
        system.reload(next);
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
