// What containers need of the network area: their networking wired for a run (before runc
// create) and undone at its end, and the namespace another container joins with
// `--network container:<id>`. As dockerd, the networks a container names are looked up at its
// start, not at its create.
import type { EndpointConfig, NetworkAttachment, NetworkedContainer } from '../network/network-attachments.js';
import { EngineError } from '../errors.js';
import type { PortMapping } from '../network/cni-lists.js';
import type { EndpointRecord } from '../network/endpoint-store.js';
import type { NetworkRecord } from '../network/network-record.js';

export interface ContainerNetworks {
  /** A run's namespace, addresses and host ports, before `runc create` (what the spec and /etc files need). */
  prepare(container: NetworkedContainer): Promise<NetworkAttachment>;
  /** The prepared run's plumbing, while runc creates the container; its process starts after it. */
  plumb(containerId: string): Promise<void>;
  /** Undoes the run's networking; nothing to undo is no error. */
  detach(containerId: string): Promise<void>;
  /** The file of the container's network namespace, while it runs on a network of its own. */
  netnsPath(containerId: string): string;
  /** After a restart: the networking of containers whose runs live on is served again, the rest undone. */
  reconcile(live: readonly NetworkedContainer[]): Promise<void>;
  /** A network as dockerd finds one for a container (404 in its words). */
  network(term: string): NetworkRecord;
  /** Hot-plugs a running container into one more network. */
  connect(container: NetworkedContainer, term: string, config: EndpointConfig | null): Promise<NetworkRecord>;
  /** Takes a running container off a network. */
  disconnect(containerId: string, term: string): Promise<NetworkRecord>;
  /** The container's endpoints while it runs, eth0 first. */
  endpoints(containerId: string): EndpointRecord[];
  /** The host ports the container publishes while it runs. */
  ports(containerId: string): PortMapping[];
  /** A swarm network a task joins, kept on this node unless it is here. */
  joinSwarmNetwork(swarmNetwork: NetworkRecord): Promise<void>;
  /** The swarm network goes from this node (with its overlay) unless an endpoint is on it; no error for an ID that is none. */
  leaveSwarmNetwork(id: string): Promise<void>;
}

/** The network a term names, or undefined when none is found (a stopped container may name one not made yet). */
export function networkIfAny(networks: Pick<ContainerNetworks, 'network'>, term: string): NetworkRecord | undefined {
  try {
    return networks.network(term);
  } catch (err) {
    if (err instanceof EngineError && err.kind === 'notFound') return undefined;
    throw err;
  }
}

/** The container's IPv4 address on the default bridge while it runs there. */
export function defaultBridgeAddress(networks: Pick<ContainerNetworks, 'endpoints' | 'network'>, containerId: string): string | undefined {
  const bridge = networks.network('bridge');
  return networks.endpoints(containerId).find((e) => e.networkId === bridge.id)?.ipv4Address?.split('/')[0];
}
