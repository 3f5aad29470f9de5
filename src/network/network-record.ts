// What berth keeps of a network: one JSON record per network (network-store.ts). The pools keep
// the request as written, because inspect shows it so (a subnet written 10.11.0.5/16 stays that),
// beside what berth derived from it: the canonical subnet and the gateway it allocated. A swarm
// network is shown in the same shape (the swarm area makes it from the managers' record); a node
// whose tasks join one keeps that record (scope swarm, driver overlay) while an endpoint is on it.
import { IpNet } from './ip-net.js';

export type NetworkDriver = 'bridge' | 'macvlan' | 'ipvlan' | 'host' | 'null';

/** The predefined networks, by the names dockerd's runconfig.IsPreDefinedNetwork reserves ("default" names the default one). */
const PREDEFINED_NETWORK_NAMES: ReadonlySet<string> = new Set(['bridge', 'host', 'none', 'default']);

export interface IpamPoolRecord {
  /** canonical: 10.11.0.0/16 */
  subnet: string;
  /** the gateway allocated; absent for a pool never allocated (an IPv6 one of a network without EnableIPv6, as dockerd keeps it) */
  gateway?: string;
  /** the entry as the request wrote it; absent for a pool taken from the defaults */
  requested?: { subnet: string; ipRange?: string; gateway?: string; auxAddresses?: Record<string, string> };
}

export interface NetworkRecord {
  /** 64 hex digits; a swarm network's (and its placeholder's): 25 characters of base 36 */
  id: string;
  name: string;
  /** overlay: a swarm network (the overlay driver's, src/network/overlay/) */
  driver: NetworkDriver | 'overlay';
  scope: 'local' | 'swarm';
  /** RFC 3339 with nanoseconds */
  created: string;
  internal: boolean;
  attachable: boolean;
  /** the swarm's routing-mesh network */
  ingress?: true;
  enableIPv6: boolean;
  ipam: {
    driver: 'default';
    /** as sent: null when the request had none (inspect shows null then, {} for an empty object) */
    options: Record<string, string> | null;
    /** IPv4 pools first, then IPv6 ones */
    config: IpamPoolRecord[];
  };
  /** driver options as sent (com.docker.network.bridge.name, com.docker.network.driver.mtu, parent, ...) */
  options: Record<string, string>;
  /** null: a swarm network made without labels, as dockerd shows it */
  labels: Record<string, string> | null;
  /** the Linux bridge berth plumbs, for the bridge driver: br-<first 12 of the ID> unless an option names one */
  bridgeName?: string;
  /** the parent link, for macvlan and ipvlan: -o parent, or a dummy link of the network's own (dm-/di-<first 12 of the ID>) */
  parent?: string;
  /** the parent is berth's to make at the first attachment and remove with the network: a dummy link, or the VLAN of `-o parent` */
  madeParent?: 'dummy' | 'vlan';
}

/** NetworkMode's and EndpointsConfig's "default" (and an empty mode) name the default bridge, as dockerd's do on Linux. */
export function defaultToBridge(name: string): string {
  return name === '' || name === 'default' ? 'bridge' : name;
}

/** A swarm network this node joined for its tasks: the swarm's to make and remove, not the user's. */
export function isJoinedSwarmNetwork(network: Pick<NetworkRecord, 'scope'>): boolean {
  return network.scope === 'swarm';
}

/** The swarm's overlay VXLAN ID of a swarm network, from its driver options as dockerd shows them. */
export function vxlanIdOf(network: NetworkRecord): number {
  return Number(network.options['com.docker.network.driver.overlay.vxlanid_list']?.split(',')[0]);
}

export function isPredefined(network: Pick<NetworkRecord, 'name'>): boolean {
  return PREDEFINED_NETWORK_NAMES.has(network.name);
}

/** The pools endpoints take addresses from: those with a gateway allocated. */
export function allocatedPools(network: NetworkRecord): Array<{ pool: IpamPoolRecord; subnet: IpNet }> {
  return network.ipam.config.flatMap((pool) => (pool.gateway === undefined ? [] : [{ pool, subnet: IpNet.parse(pool.subnet) as IpNet }]));
}
