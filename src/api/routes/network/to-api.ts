// berth's networks in the shapes of the wire.
import type { NetworkView } from '../../../network/network-service.js';
import type { IpamPoolRecord } from '../../../network/network-record.js';
import type { IPAMConfig, Network, NetworkContainer } from '../../types/network.js';

/**
 * A network as dockerd shows it; `withContainers` false leaves Containers empty, as dockerd's list
 * from 1.28; a swarm network as the managers list it has none (null).
 */
export function toNetwork({ network: n, endpoints, services }: NetworkView, withContainers: boolean): Network {
  const containers: Record<string, NetworkContainer> = {};
  if (withContainers && endpoints !== undefined) {
    for (const e of endpoints) {
      containers[e.containerId] = {
        Name: e.containerName,
        EndpointID: e.id,
        MacAddress: e.macAddress,
        IPv4Address: e.ipv4Address ?? '',
        IPv6Address: e.ipv6Address ?? '',
      };
    }
  }
  return {
    Name: n.name,
    Id: n.id,
    Created: n.created,
    Scope: n.scope,
    Driver: n.driver,
    EnableIPv6: n.enableIPv6,
    IPAM: { Driver: n.ipam.driver, Options: n.ipam.options, Config: n.ipam.config.map(toIpamConfig) },
    Internal: n.internal,
    Attachable: n.attachable,
    Ingress: n.ingress === true,
    ConfigFrom: { Network: '' },
    ConfigOnly: false,
    Containers: endpoints === undefined ? null : containers,
    Options: n.options,
    Labels: n.labels,
    ...(services !== undefined ? { Services: services } : {}),
  };
}

/** A pool as the request wrote it, or, for one taken from the defaults, its subnet and gateway. */
function toIpamConfig(pool: IpamPoolRecord): IPAMConfig {
  const r = pool.requested;
  if (r === undefined) return { Subnet: pool.subnet, ...(pool.gateway !== undefined && { Gateway: pool.gateway }) };
  return {
    Subnet: r.subnet,
    ...(r.ipRange !== undefined && { IPRange: r.ipRange }),
    ...(r.gateway !== undefined && { Gateway: r.gateway }),
    ...(r.auxAddresses !== undefined && { AuxiliaryAddresses: r.auxAddresses }),
  };
}
