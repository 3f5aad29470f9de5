// What the network area asks of the swarm: its networks, which only a manager lists, makes and
// removes. The swarm area serves it and the daemon hands it over; the network area merges these
// networks with the node's own as dockerd's network router does (network-api.ts).
import type { NetworkCreateRequest } from './create-request.js';
import type { NetworkRecord } from './network-record.js';

export interface SwarmNetworks {
  /** This node's part in a swarm now: a manager serves the swarm's networks (a locked or joining node is none yet). */
  role(): 'manager' | 'worker' | 'none';
  /** The swarm's networks (scope swarm); dockerd's errors off a manager or without a leader. */
  list(): Promise<NetworkRecord[]>;
  /** A network the node's checks sent to the swarm (an overlay, or scope swarm): its ID. */
  create(req: NetworkCreateRequest): Promise<string>;
  /** By ID; refused while a service or a running task uses it. */
  remove(id: string): Promise<void>;
  /** The services on a swarm network as this node's table has them (`inspect --verbose`), by name. */
  services(networkId: string): Record<string, ServiceInfoView>;
  /**
   * A plain container of this node joins an attachable swarm network (`docker run --network`):
   * the network and the container's address on it (with its prefix length); undefined outside a
   * swarm; the managers' errors for a network not found or not attachable.
   */
  attach(target: string, containerId: string): Promise<{ network: NetworkRecord; address: string } | undefined>;
  /** Its address goes back once it left. */
  detach(containerId: string): Promise<void>;
}

/** dockerd's ServiceInfo of a verbose network inspect. */
export interface ServiceInfoView {
  VIP: string;
  Ports: string[];
  LocalLBIndex: number;
  Tasks: Array<{ Name: string; EndpointID: string; EndpointIP: string; Info: Record<string, string> }>;
}
