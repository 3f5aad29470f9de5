// POST /networks/{id}/connect and /disconnect, served by the containers as dockerd serves them
// (daemon.ConnectToNetwork, DisconnectFromNetwork): the container is found first, and its
// EndpointsConfig is what changes. A running container is hot-plugged; a stopped one only has its
// configuration changed, for its next start, and may even name a network not found (dockerd keeps
// the name, for a swarm network to come).
import { EngineError, invalidParameter, notFound } from '../errors.js';
import { defaultToBridge, type NetworkRecord } from '../network/network-record.js';
import { decodeEndpointSettings } from './config/create-body.js';
import type { EndpointSettings } from './config/types.js';
import { networkIfAny, type ContainerNetworks } from './container-networks.js';
import type { ContainerRecord } from './container-record.js';
import type { ContainerService } from './container-service.js';
import { networkedContainer } from './networked-container.js';

export interface NetworkConnectRequest {
  Container: string;
  /** EndpointSettings as sent, decoded here as create's are */
  EndpointConfig: unknown;
}

export interface NetworkDisconnectRequest {
  Container: string;
  Force: boolean;
}

const SHARED_NAMESPACE = 'container sharing network namespace with another container or host cannot be connected to any other network';
const HOST_NETWORK = 'container cannot be disconnected from host network or connected to host network';
const PRIVATE_NETWORK = 'container cannot be connected to multiple networks with one of the networks in private (none) mode';
const SHORT_ID_LENGTH = 12;

export function networkConnectApi(service: ContainerService, networks: ContainerNetworks) {
  return {
    async connect(networkRef: string, req: NetworkConnectRequest): Promise<void> {
      // the whole body is decoded first (400), then the container looked for (404), as dockerd's JSON decode comes first
      const requested = decodeEndpointSettings(req.EndpointConfig) ?? {};
      service.get(req.Container);
      await service.changeNetworks(req.Container, async (record, running) => {
        refuseRemoval(record);
        const mode = record.hostConfig.NetworkMode ?? '';
        if (mode === 'host' || mode.startsWith('container:')) throw invalidParameter(SHARED_NAMESPACE);
        const configs = (record.networkingConfig.EndpointsConfig ??= {});
        const network = running ? networks.network(networkRef) : networkIfAny(networks, networkRef);
        if (network === undefined) {
          configs[networkRef] = requested;
          return;
        }
        if (network.driver === 'host') throw invalidParameter(HOST_NETWORK);
        if (network.driver === 'null' || mode === 'none') throw invalidParameter(PRIVATE_NETWORK);
        const settings = withShortId(network, record.id, requested);
        if (running) {
          await networks.connect(networkedContainer(record), network.id, settings);
        } else if (configs[network.name] !== undefined) {
          // dockerd keeps what a stopped container was connected with first
          return;
        }
        configs[network.name] = settings;
      });
    },

    async disconnect(networkRef: string, req: NetworkDisconnectRequest): Promise<void> {
      // a forced disconnect of a container gone removes its stale endpoint; berth's are removed at start (reconcile)
      if (req.Force && !exists(service, req.Container)) throw notFound(`endpoint ${req.Container} not found`);
      await service.changeNetworks(req.Container, async (record, running) => {
        refuseRemoval(record);
        const configs = (record.networkingConfig.EndpointsConfig ??= {});
        const network = running ? networks.network(networkRef) : networkIfAny(networks, networkRef);
        if (network === undefined) {
          delete configs[networkRef];
          return;
        }
        if (network.driver === 'host' || record.hostConfig.NetworkMode === 'host') throw invalidParameter(HOST_NETWORK);
        const key = Object.keys(configs).find((k) => k === network.name || k === network.id);
        if (running) {
          const connected = networks.endpoints(record.id).some((e) => e.networkId === network.id);
          if (!connected) throw new EngineError('system', `container ${record.id} is not connected to network ${networkRef}`);
          await networks.disconnect(record.id, network.id);
        } else if (key === undefined && !isNetworkMode(record, network)) {
          throw new EngineError('system', `container ${record.id} is not connected to the network ${networkRef}`);
        }
        if (key !== undefined) delete configs[key];
      });
    },
  };
}

function exists(service: ContainerService, ref: string): boolean {
  try {
    service.get(ref);
    return true;
  } catch (err) {
    if (err instanceof EngineError && err.kind === 'notFound') return false;
    throw err;
  }
}


function refuseRemoval(record: ContainerRecord): void {
  const status = record.state.status;
  if (status === 'removing' || status === 'dead') throw new EngineError('system', `Container ${record.id} is marked for removal and cannot be connected or disconnected to the network`);
}

/** The container's NetworkMode names this network (dockerd's Networks holds it from create). */
function isNetworkMode(record: ContainerRecord, network: NetworkRecord): boolean {
  const mode = record.hostConfig.NetworkMode ?? '';
  const named = defaultToBridge(mode);
  return named === network.name || named === network.id;
}

/** On a network of the user's, dockerd adds the container's short ID to its aliases. */
function withShortId(network: NetworkRecord, containerId: string, settings: EndpointSettings): EndpointSettings {
  const shortId = containerId.slice(0, SHORT_ID_LENGTH);
  if (network.name === 'bridge' || settings.Aliases?.includes(shortId)) return settings;
  return { ...settings, Aliases: [...(settings.Aliases ?? []), shortId] };
}
