// The system area: the daemon's identity and settings, the host's facts, what the data root holds
// and the event stream, for /version, /info, /system/df and /events.
import { listenAddresses, type DaemonConfig } from '../config/daemon-config.js';
import type { EventBus } from '../events/event-bus.js';
import type { SwarmInfo } from '../swarm/swarm-service.js';
import { loadEngineId } from './engine-id.js';
import { SystemService, type ContainerInventory, type ImageInventory, type VolumeInventory } from './system-service.js';

export async function createSystem(deps: { config: DaemonConfig; events: EventBus; inventories: { images: ImageInventory; containers: ContainerInventory; volumes: VolumeInventory }; networkDrivers: readonly string[]; logDrivers: readonly string[]; swarm: { info(): Promise<SwarmInfo> } }) {
  const { config } = deps;
  const plainTcpHosts = config.tls === false ? listenAddresses(config).filter((h) => h.startsWith('tcp://')) : [];
  const service = new SystemService({
    engineId: await loadEngineId(config.dataRoot),
    dataRoot: config.dataRoot,
    events: deps.events,
    settings: { debug: config.debug, labels: config.labels },
    inventories: deps.inventories,
    networkDrivers: deps.networkDrivers,
    logDrivers: deps.logDrivers,
    loggingDriver: config.logDriver || 'json-file',
    swarm: deps.swarm,
    startupWarnings: plainTcpHosts.map((h) => `WARNING: API is accessible on ${h.replace('tcp://', 'http://')} without encryption.`),
  });
  return {
    api: service,
    engineFacts: () => service.engineFacts(),
    /** Takes what SIGHUP reloaded: the settings /info reports, with the reload event. */
    reload: (next: DaemonConfig) => service.reload({ debug: next.debug, labels: next.labels }),
  };
}
