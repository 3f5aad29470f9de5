// The names of swarm services and tasks on the overlay networks a node is on, kept from the
// endpoint records every node receives (libnetwork's EndpointRecord: one per task, or per plain
// container on an attachable network, per network). The swarm agent applies their changes here;
// the DNS registry asks for a querier's swarm networks. Names follow libnetwork's (moby v20.10
// service_common.go addEndpointNameResolution and addContainerNameResolution, network.go
// addSvcRecords and ResolveIP):
// - the record's name and each task alias: the endpoint's IP, and PTR of that IP: name.network;
// - `tasks.<service>` and `tasks.<alias>`: every task's IP;
// - `<service>` and each alias: the VIP, or every task's IP for a service without one (dnsrr);
// - a plain container (no service) has its name and task aliases only;
// - a disabled endpoint has none of these, but its service keeps the VIP name (rmServiceBinding
//   with fullRemove false leaves the load balancer, hence the VIP); one added disabled binds no
//   VIP (newer libnetwork's handleEpTableEvent binds it once enabled);
// - a VIP has no PTR (its addSvcRecords has ipMapUpdate false), and the ingress network gives
//   nothing (addSvcRecords returns there).
// Berth adds SRV by port name, which Docker never answered (its network.ResolveService reads a map
// nothing fills): `_<port>._<proto>.<service>` names each enabled task with the port's target port.
// Each name counts its addresses, so a change touches only the names of one endpoint: no rebuilds.
import type { DnsAddresses, DnsServiceTarget } from './dns-records.js';
import { rotate } from './rotate.js';
import type { PortProtocol } from './srv-name.js';

/** One endpoint record, as plain data. */
export interface SwarmEndpoint {
  endpointId: string;
  /** The task's name (`web.1.<task id>`), or the plain container's. */
  name: string;
  /** Empty for a plain container. */
  serviceName: string;
  serviceId: string;
  /** The service's VIP on this network, without prefix; empty for none (dnsrr, plain container). */
  virtualIp: string;
  /** IPv4, without prefix. */
  ip: string;
  /** The service's aliases on this network. */
  aliases: readonly string[];
  taskAliases: readonly string[];
  disabled: boolean;
  /** the routing mesh's ports, in an ingress network's record alone */
  ingressPorts?: ReadonlyArray<{ protocol: 'tcp' | 'udp' | 'sctp'; publishedPort: number; targetPort: number }>;
}

export interface SwarmEndpointChange {
  kind: 'add' | 'remove' | 'disable' | 'enable';
  endpoint: SwarmEndpoint;
}

/** A named port of a service's EndpointSpec. */
export interface ServicePort {
  name: string;
  protocol: PortProtocol;
  targetPort: number;
}

interface Held {
  endpoint: SwarmEndpoint;
  /** Enabled at some time since it was added: its service's VIP name is bound, and stays while it is disabled. */
  bound: boolean;
}

interface SwarmNetwork {
  name: string;
  /** The name as a query spells it. */
  key: string;
  ingress: boolean;
  endpoints: Map<string, Held>;
  names: Map<string, AddressCounts>;
  /** Enabled endpoints by IP, for PTR; the first one added names the IP, as Docker takes its set's first. */
  byAddress: Map<string, Set<Held>>;
  /** Every endpoint of a service, enabled or not, under the service's name and aliases: for SRV. */
  services: Map<string, Set<Held>>;
  /** SRV targets take turns, as addresses do. */
  turn: number;
}

const NO_ADDRESSES: readonly string[] = [];

export class SwarmNames {
  private changes = 0;
  private readonly networks = new Map<string, SwarmNetwork>();
  /** Named ports by service ID, names in lower case. */
  private readonly ports = new Map<string, readonly ServicePort[]>();

  get version(): number {
    return this.changes;
  }

  addNetwork(id: string, name: string, { ingress }: { ingress: boolean }): void {
    if (this.networks.has(id)) return;
    this.changes++;
    this.networks.set(id, { name, key: name.toLowerCase(), ingress, endpoints: new Map(), names: new Map(), byAddress: new Map(), services: new Map(), turn: 0 });
  }

  removeNetwork(id: string): void {
    if (this.networks.delete(id)) this.changes++;
  }

  /** The service's named ports (unnamed ones have no SRV name); an empty list forgets the service. */
  setServicePorts(serviceId: string, ports: readonly ServicePort[]): void {
    this.changes++;
    const named = ports.filter((p) => p.name !== '').map((p) => ({ ...p, name: p.name.toLowerCase() }));
    if (named.length > 0) this.ports.set(serviceId, named);
    else this.ports.delete(serviceId);
  }

  apply(networkId: string, { kind, endpoint }: SwarmEndpointChange): void {
    const network = this.networks.get(networkId);
    if (!network) throw new Error(`swarm names: no network ${networkId}`);
    if (network.ingress) return;
    const held = network.endpoints.get(endpoint.endpointId);
    if (kind === 'add') this.replace(network, held, { endpoint, bound: !endpoint.disabled });
    else if (kind === 'remove') this.replace(network, held, undefined);
    else if (kind === 'disable') this.replace(network, held, { endpoint: { ...endpoint, disabled: true }, bound: held?.bound ?? false });
    else this.replace(network, held, { endpoint: { ...endpoint, disabled: false }, bound: true });
  }

  /** The addresses of `name` (lower case) on the network; with `networkKey`, only when that is the network's name. */
  lookup(networkId: string, name: string, networkKey?: string): DnsAddresses | undefined {
    const network = this.networks.get(networkId);
    if (!network || (networkKey !== undefined && network.key !== networkKey)) return undefined;
    return network.names.get(name)?.take();
  }

  /** `<name>.<network>` of the endpoint at `address` on the network. */
  reverse(networkId: string, address: string): string | undefined {
    const network = this.networks.get(networkId);
    const holders = network?.byAddress.get(address);
    if (!network || !holders) return undefined;
    const [first] = holders;
    return `${first.endpoint.name}.${network.name}`;
  }

  /**
   * SRV targets for `_<portName>._<protocol>.<service>` on the network, each `<task>.<network>` so
   * that its A record is the one on this network. Undefined when the network does not know the
   * service; an empty list when it does but has no such port or no enabled task, or when the
   * service is unknown on a network named by `networkKey` (a name in the network's domain).
   */
  service(networkId: string, service: string, portName: string, protocol: PortProtocol, networkKey?: string): readonly DnsServiceTarget[] | undefined {
    const network = this.networks.get(networkId);
    if (!network || network.ingress || (networkKey !== undefined && network.key !== networkKey)) return undefined;
    const holders = network.services.get(service);
    if (!holders) return networkKey === undefined ? undefined : [];
    const targets: DnsServiceTarget[] = [];
    for (const { endpoint } of holders) {
      if (endpoint.disabled) continue;
      for (const port of this.ports.get(endpoint.serviceId) ?? []) {
        if (port.name === portName && port.protocol === protocol) targets.push({ target: `${endpoint.name}.${network.name}`, port: port.targetPort, ipv4: endpoint.ip });
      }
    }
    return rotate(targets, network.turn++);
  }

  private replace(network: SwarmNetwork, old: Held | undefined, next: Held | undefined): void {
    if (!old && !next) return;
    this.changes++;
    if (old) this.retract(network, old);
    if (next) {
      network.endpoints.set(next.endpoint.endpointId, next);
      this.publish(network, next);
    } else if (old) {
      network.endpoints.delete(old.endpoint.endpointId);
    }
  }

  private publish(network: SwarmNetwork, held: Held): void {
    forEachName(held, (name, address) => {
      let counts = network.names.get(name);
      if (!counts) network.names.set(name, (counts = new AddressCounts()));
      counts.add(address);
    });
    const { endpoint } = held;
    if (!endpoint.disabled) addTo(network.byAddress, endpoint.ip, held);
    if (endpoint.serviceId !== '') for (const name of serviceNames(endpoint)) addTo(network.services, name, held);
  }

  private retract(network: SwarmNetwork, held: Held): void {
    forEachName(held, (name, address) => {
      if (network.names.get(name)?.remove(address) === 0) network.names.delete(name);
    });
    const { endpoint } = held;
    if (!endpoint.disabled) removeFrom(network.byAddress, endpoint.ip, held);
    if (endpoint.serviceId !== '') for (const name of serviceNames(endpoint)) removeFrom(network.services, name, held);
  }
}

/** Every (name, address) pair the endpoint publishes, names in lower case: the one list that publish and retract both walk. */
function forEachName({ endpoint, bound }: Held, visit: (name: string, address: string) => void): void {
  const { ip, virtualIp } = endpoint;
  const isTask = endpoint.serviceId !== '';
  if (!endpoint.disabled) {
    visit(endpoint.name.toLowerCase(), ip);
    for (const alias of endpoint.taskAliases) visit(alias.toLowerCase(), ip);
    if (isTask) {
      for (const name of serviceNames(endpoint)) {
        visit(`tasks.${name}`, ip);
        if (virtualIp === '') visit(name, ip);
      }
    }
  }
  if (isTask && bound && virtualIp !== '') for (const name of serviceNames(endpoint)) visit(name, virtualIp);
}

function serviceNames(endpoint: SwarmEndpoint): string[] {
  const names = endpoint.serviceName === '' ? endpoint.aliases : [endpoint.serviceName, ...endpoint.aliases];
  return names.map((n) => n.toLowerCase());
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set?.delete(value) && set.size === 0) map.delete(key);
}

/** The addresses of one name, each counted once per endpoint record that gives it (Docker's set of (IP, service) pairs, answered without duplicates). */
class AddressCounts {
  private readonly counts = new Map<string, number>();
  private list: readonly string[] | undefined;
  private turn = 0;

  add(address: string): void {
    const count = this.counts.get(address) ?? 0;
    this.counts.set(address, count + 1);
    if (count === 0) this.list = undefined;
  }

  /** The number of addresses left. */
  remove(address: string): number {
    const count = this.counts.get(address);
    if (count === 1) {
      this.counts.delete(address);
      this.list = undefined;
    } else if (count !== undefined) {
      this.counts.set(address, count - 1);
    }
    return this.counts.size;
  }

  take(): DnsAddresses {
    this.list ??= [...this.counts.keys()];
    return { a: rotate(this.list, this.turn++), aaaa: NO_ADDRESSES };
  }
}
