// The VIP load balancers of this node's containers on swarm networks, kept from the endpoint
// records the swarm's agent applies (the same changes DNS takes): per network, each service's VIP
// and its enabled tasks' addresses; each container on a network balances every VIP of each of its
// swarm networks (service-vips.ts), as libnetwork programs every sandbox on a network. Changes are
// gathered and each container affected is programmed once per round, so that thousands of records
// a second cost one iptables-restore per container, not one per record. The ingress network's
// records are the routing mesh's, not a container's.
import type { Logger } from 'pino';
import { Coalesced } from '../../lib/coalesced.js';
import type { SwarmEndpointChange } from '../dns/swarm-names.js';
import { programServiceVips, type ServiceVip } from './service-vips.js';

interface Backend {
  vip: string;
  ip: string;
  disabled: boolean;
}

export interface ServiceBalancersDeps {
  /** the containers of this node on the network: their namespaces' files */
  containersOn(networkId: string): Array<{ containerId: string; netns: string }>;
  /** the networks the container is on (those not swarm networks count for nothing) */
  networksOf(containerId: string): string[];
  log: Logger;
}

export class ServiceBalancers {
  /** network → endpoint → its service's VIP and its address */
  private readonly backends = new Map<string, Map<string, Backend>>();
  private readonly ingress = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly rounds = new Coalesced(() => this.flush());

  constructor(private readonly deps: ServiceBalancersDeps) {}

  addNetwork(id: string, { ingress }: { ingress: boolean }): void {
    if (ingress) this.ingress.add(id);
    if (!this.backends.has(id)) this.backends.set(id, new Map());
  }

  removeNetwork(id: string): void {
    this.backends.delete(id);
    this.ingress.delete(id);
  }

  apply(networkId: string, { kind, endpoint }: SwarmEndpointChange): void {
    const known = this.backends.get(networkId);
    if (known === undefined || this.ingress.has(networkId)) return;
    if (kind === 'remove') known.delete(endpoint.endpointId);
    else if (endpoint.virtualIp !== '') known.set(endpoint.endpointId, { vip: endpoint.virtualIp, ip: endpoint.ip, disabled: kind === 'disable' || (kind === 'add' && endpoint.disabled) });
    this.dirty.add(networkId);
    this.rounds.request();
  }

  /** The VIPs a container balances: every one of each of its swarm networks, a disabled task left out. */
  vipsOf(containerId: string): ServiceVip[] {
    const vips = new Map<string, string[]>();
    for (const networkId of this.deps.networksOf(containerId)) {
      if (this.ingress.has(networkId)) continue;
      for (const b of this.backends.get(networkId)?.values() ?? []) {
        const list = vips.get(b.vip) ?? [];
        vips.set(b.vip, list);
        if (!b.disabled) list.push(b.ip);
      }
    }
    return [...vips].map(([vip, backends]) => ({ vip, backends }));
  }

  /** Programs one container now: at its start, before its process runs. */
  program(containerId: string, netns: string): Promise<boolean> {
    return programServiceVips(netns, this.vipsOf(containerId));
  }

  /** Settles once every change applied so far is programmed. */
  settled(): Promise<void> {
    return this.rounds.settled();
  }

  private async flush(): Promise<void> {
    const networks = [...this.dirty];
    this.dirty.clear();
    const containers = new Map<string, string>();
    for (const id of networks) for (const c of this.deps.containersOn(id)) containers.set(c.containerId, c.netns);
    await Promise.all(
      [...containers].map(([containerId, netns]) =>
        // a container stopping meanwhile takes its namespace away
        this.program(containerId, netns).catch((err: unknown) => this.deps.log.debug({ err, containerId }, 'swarm: a container\'s service VIPs not programmed')),
      ),
    );
  }
}
