// What swarmkit's allocator gives a service's endpoint, made with the service's create or update:
// its ingress published ports (port-allocation.ts) and, in vip mode, a virtual IP on each swarm
// network the service is on, the ingress network first when it publishes ports through the routing
// mesh, as swarmkit's. The keys the endpoint comes to hold are claimed, those it no longer
// holds released, in the service's transaction.
import { EngineError } from '../../errors.js';
import type { SwarmNetworkRecord } from '../networks/network-records.js';
import type { NodePortRanges } from '../node-port-ranges.js';
import type { ServiceRecord, VirtualIp } from '../services/service-records.js';
import type { Claims } from '../services/service-state.js';
import type { NetworkAttachmentConfig, ServiceSpec } from '../services/service-types.js';
import { addressKey, nextAddress } from './address-allocation.js';
import { allocatePorts, ingressPortKeys } from './port-allocation.js';

export type Endpoint = ServiceRecord['endpoint'];

/** The networks a service's tasks join: its task template's, else the deprecated service-level ones (as swarmkit's allocator reads them). */
export function attachedNetworks(spec: ServiceSpec): NetworkAttachmentConfig[] {
  const inTask = spec.TaskTemplate.Networks ?? [];
  return inTask.length > 0 ? inTask : (spec.Networks ?? []);
}

/** The ingress network, which a service publishing through the routing mesh joins (swarmkit's FailedPrecondition without one). */
export function ingressNetwork(networks: ReadonlyMap<string, SwarmNetworkRecord>): SwarmNetworkRecord {
  const found = [...networks.values()].find((n) => n.spec.ingress);
  if (found === undefined) throw new EngineError('invalidParameter', 'rpc error: code = FailedPrecondition desc = service needs ingress network, but no ingress network is present');
  return found;
}

/** The keys an endpoint holds: its ingress ports and its virtual IPs. */
export function endpointKeys(endpoint: Endpoint): string[] {
  return [...ingressPortKeys(endpoint.ports), ...endpoint.virtualIps.map((v) => addressKey(v.networkId, v.addr))];
}

/**
 * The endpoint of `spec`, given the one the service had (none for a new service), the swarm's
 * networks, the keys held now and this daemon's node port ranges; what it keeps of the previous
 * one it keeps.
 */
export function allocateEndpoint(
  spec: ServiceSpec,
  previous: Endpoint | undefined,
  networks: ReadonlyMap<string, SwarmNetworkRecord>,
  held: ReadonlySet<string>,
  portRanges: NodePortRanges,
): { endpoint: Endpoint; claims: Claims } {
  const ports = allocatePorts(spec.EndpointSpec?.Ports ?? [], previous?.ports ?? [], held, portRanges);
  const taken = new Set(held);
  const virtualIps: VirtualIp[] = [];
  const ingress = ports.some((p) => p.PublishMode === 'ingress') ? ingressNetwork(networks) : undefined;
  if ((spec.EndpointSpec?.Mode ?? 'vip') === 'vip') {
    for (const networkId of new Set([...(ingress !== undefined ? [ingress.id] : []), ...attachedNetworks(spec).map((n) => n.Target)])) {
      const network = networks.get(networkId);
      if (network === undefined) continue;
      const kept = previous?.virtualIps.find((v) => v.networkId === networkId);
      const addr = kept?.addr ?? nextAddress(networkId, network.pools, taken);
      // libnetwork's ipamapi.ErrNoAvailableIPs
      if (addr === undefined) throw new EngineError('unavailable', 'no available addresses on this pool');
      taken.add(addressKey(networkId, addr));
      virtualIps.push({ networkId, addr });
    }
  }
  const endpoint: Endpoint = { ...(spec.EndpointSpec !== undefined ? { spec: spec.EndpointSpec } : {}), ports, virtualIps };
  const before = new Set(previous === undefined ? [] : endpointKeys(previous));
  const after = new Set(endpointKeys(endpoint));
  return { endpoint, claims: { claim: [...after].filter((k) => !before.has(k)), release: [...before].filter((k) => !after.has(k)) } };
}
