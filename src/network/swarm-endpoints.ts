// What the swarm's agent tells the network area of the swarm networks its node's tasks are on,
// besides the overlay's peers: the networks themselves, each change of their endpoint records
// (libnetwork's rules already applied: add, remove, disable, enable) and the services' named
// ports. The names go to the DNS server (dns/swarm-names.ts); the service VIPs go to the load
// balancers of this node's containers on those networks; the ingress network's records go to the
// routing mesh alone.
import type { ServicePort, SwarmEndpointChange, SwarmNames } from './dns/swarm-names.js';
import type { IngressMesh } from './service-lb/ingress-mesh.js';
import type { ServiceBalancers } from './service-lb/service-balancers.js';

export interface SwarmNetworkRef {
  id: string;
  name: string;
  ingress: boolean;
}

export class SwarmEndpoints {
  private networks = new Map<string, SwarmNetworkRef>();
  private services = new Set<string>();

  constructor(
    private readonly names: SwarmNames,
    private readonly balancers: ServiceBalancers,
    private readonly mesh: Pick<IngressMesh, 'apply'>,
  ) {}

  /** The node's swarm networks now: new ones come before their records, gone ones after (call leftNetworks then). */
  addNetworks(networks: readonly SwarmNetworkRef[]): void {
    for (const n of networks) {
      if (this.networks.has(n.id)) continue;
      this.networks.set(n.id, n);
      this.names.addNetwork(n.id, n.name, { ingress: n.ingress });
      this.balancers.addNetwork(n.id, { ingress: n.ingress });
    }
  }

  /** The networks not among `networks` are forgotten, once their records' removals were applied. */
  leftNetworks(networks: readonly SwarmNetworkRef[]): void {
    const keep = new Set(networks.map((n) => n.id));
    for (const id of [...this.networks.keys()]) {
      if (keep.has(id)) continue;
      this.networks.delete(id);
      this.names.removeNetwork(id);
      this.balancers.removeNetwork(id);
    }
  }

  apply(networkId: string, change: SwarmEndpointChange): void {
    const network = this.networks.get(networkId);
    if (network === undefined) return;
    if (network.ingress) return this.mesh.apply(change);
    this.names.apply(networkId, change);
    this.balancers.apply(networkId, change);
  }

  /** Every service's named ports, the whole set each time. */
  setServicePorts(services: ReadonlyArray<{ serviceId: string; ports: readonly ServicePort[] }>): void {
    const now = new Set(services.map((s) => s.serviceId));
    for (const id of this.services) if (!now.has(id)) this.names.setServicePorts(id, []);
    for (const s of services) this.names.setServicePorts(s.serviceId, s.ports);
    this.services = now;
  }
}
