// Swarm networks in the cluster store: one document per network under /networks/<id>, a name key
// beside it (/names/networks/<name>) in the same transaction, as secrets keep theirs. What the
// allocator gives a network (its pools, its VXLAN ID) is in the record, made by the create's
// transaction; every create compares and raises one allocation key, so that two managers never
// hand out one subnet or ID. A network shows as the network area shows networks (NetworkRecord),
// as dockerd 20.10 shows a swarm network that this node has not joined.
import type { NetworkRecord } from '../../network/network-record.js';
import type { AllocatedPool, IpamEntry } from './network-allocation.js';

export const NETWORKS = '/networks/';
export const NETWORK_ALLOCATION_KEY = '/allocation/networks';

export function networkNameKey(name: string): string {
  return `/names/networks/${name}`;
}

const VXLAN_OPTION = 'com.docker.network.driver.overlay.vxlanid_list';
/** what swarmkit's allocator adds to IPAM options a network was given */
const SERIAL_IPAM_OPTION = 'com.docker.network.ipam.serial';

export interface SwarmNetworkSpec {
  name: string;
  labels: Record<string, string>;
  /** driver options as sent */
  options: Record<string, string>;
  internal: boolean;
  attachable: boolean;
  enableIPv6: boolean;
  /** the routing mesh's network: one per swarm, made at init */
  ingress?: true;
  ipam: { options: Record<string, string>; entries: IpamEntry[] };
}

export interface SwarmNetworkRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: SwarmNetworkSpec;
  pools: AllocatedPool[];
  vxlanId: number;
}

/** The network as dockerd shows it: empty labels and IPAM options null (swarmkit's protobuf keeps no empty map). */
export function networkView(n: SwarmNetworkRecord): NetworkRecord {
  const ipamOptions = Object.keys(n.spec.ipam.options).length === 0 ? null : { [SERIAL_IPAM_OPTION]: 'true', ...n.spec.ipam.options };
  return {
    id: n.id,
    name: n.spec.name,
    driver: 'overlay',
    scope: 'swarm',
    created: n.createdAt,
    internal: n.spec.internal,
    attachable: n.spec.attachable,
    enableIPv6: n.spec.enableIPv6,
    ...(n.spec.ingress ? { ingress: true } : {}),
    ipam: {
      driver: 'default',
      options: ipamOptions,
      config: n.pools.map((p) => ({ subnet: p.subnet, gateway: p.gateway, requested: { subnet: p.subnet, gateway: p.gateway, ...(p.ipRange !== undefined ? { ipRange: p.ipRange } : {}) } })),
    },
    options: { ...n.spec.options, [VXLAN_OPTION]: String(n.vxlanId) },
    labels: Object.keys(n.spec.labels).length === 0 ? null : n.spec.labels,
  };
}
