// The names of containers on user-defined networks, kept in memory for the embedded DNS server.
// The network area adds and removes networks and endpoints; the server asks lookup() and
// reverse() for every query, so each is a few map reads. Names follow Docker's resolver
// (libnetwork sandbox.ResolveName, network.ResolveIP): per network, the container name, its
// aliases and its short ID; NAME.NETWORK for a network the querier is on; `--link` aliases only
// for the container that made the link; PTR answers `name.network`.
import { canonicalAddress } from './canonical-address.js';
import type { DnsAddresses, DnsRecords } from './dns-records.js';
import { rotate } from './rotate.js';

/** A container's endpoint on one network, as the network area knows it. */
export interface DnsEndpoint {
  containerId: string;
  /** Without Docker's leading slash. */
  containerName: string;
  /** Network aliases (`--network-alias`, EndpointSettings.Aliases): every container on the network resolves them. */
  aliases?: readonly string[];
  /** This container's `--link` aliases on this network, alias → linked container's name: only this container resolves them (Docker keeps them on the linking endpoint). */
  links?: Readonly<Record<string, string>>;
  ipv4?: string;
  ipv6?: string;
}

interface Network {
  id: string;
  name: string;
  /** The name as a query spells it (NAME.NETWORK is matched without case). */
  key: string;
  names: Map<string, NameEntry>;
  byAddress: Map<string, Endpoint[]>;
  endpoints: Map<string, Endpoint>;
}

interface Endpoint {
  network: Network;
  containerId: string;
  containerName: string;
  /** The names it answers on its network, lower case. */
  keys: string[];
  links: Map<string, string>;
  addresses: string[];
  ipv4?: string;
  ipv6?: string;
}

const SHORT_ID_LENGTH = 12;
const NO_ADDRESSES: DnsAddresses = { a: [], aaaa: [] };

export class DnsRegistry implements DnsRecords {
  private changes = 0;
  private readonly networks = new Map<string, Network>();
  /** Each container's endpoints in the order it joined their networks: the order names are looked for. */
  private readonly containers = new Map<string, Endpoint[]>();
  /** Container addresses on every network, to know a querier by its source address. */
  private readonly queriers = new Map<string, string>();

  get version(): number {
    return this.changes;
  }

  addNetwork(id: string, name: string): void {
    if (this.networks.has(id)) return;
    this.changes++;
    this.networks.set(id, { id, name, key: name.toLowerCase(), names: new Map(), byAddress: new Map(), endpoints: new Map() });
  }

  removeNetwork(id: string): void {
    const network = this.networks.get(id);
    if (!network) return;
    for (const containerId of [...network.endpoints.keys()]) this.removeEndpoint(id, containerId);
    this.networks.delete(id);
    this.changes++;
  }

  /** Adds the container's endpoint on the network, replacing the one it had there. */
  addEndpoint(networkId: string, endpoint: DnsEndpoint): void {
    const network = this.networks.get(networkId);
    if (!network) throw new Error(`DNS registry: no network ${networkId}`);
    this.removeEndpoint(networkId, endpoint.containerId);
    this.changes++;
    const ipv6 = endpoint.ipv6 === undefined ? undefined : canonicalAddress(endpoint.ipv6);
    const keys = new Set([endpoint.containerName, ...(endpoint.aliases ?? []), endpoint.containerId.slice(0, SHORT_ID_LENGTH)].map((n) => n.toLowerCase()));
    const ep: Endpoint = {
      network,
      containerId: endpoint.containerId,
      containerName: endpoint.containerName,
      keys: [...keys],
      links: new Map(Object.entries(endpoint.links ?? {}).map(([alias, target]) => [alias.toLowerCase(), target.toLowerCase()])),
      addresses: [endpoint.ipv4, ipv6].filter((a): a is string => a !== undefined),
      ipv4: endpoint.ipv4,
      ipv6,
    };
    network.endpoints.set(ep.containerId, ep);
    for (const key of ep.keys) {
      let entry = network.names.get(key);
      if (!entry) network.names.set(key, (entry = new NameEntry()));
      entry.add(ep);
    }
    for (const address of ep.addresses) {
      network.byAddress.set(address, [...(network.byAddress.get(address) ?? []), ep]);
      this.queriers.set(address, ep.containerId);
    }
    this.containers.set(ep.containerId, [...(this.containers.get(ep.containerId) ?? []), ep]);
  }

  removeEndpoint(networkId: string, containerId: string): void {
    const network = this.networks.get(networkId);
    const ep = network?.endpoints.get(containerId);
    if (!network || !ep) return;
    this.changes++;
    network.endpoints.delete(containerId);
    for (const key of ep.keys) {
      if (network.names.get(key)?.remove(ep) === 0) network.names.delete(key);
    }
    for (const address of ep.addresses) {
      const rest = (network.byAddress.get(address) ?? []).filter((e) => e !== ep);
      if (rest.length > 0) network.byAddress.set(address, rest);
      else network.byAddress.delete(address);
      if (this.queriers.get(address) === containerId) this.queriers.delete(address);
    }
    const left = (this.containers.get(containerId) ?? []).filter((e) => e !== ep);
    if (left.length > 0) this.containers.set(containerId, left);
    else this.containers.delete(containerId);
  }

  lookup(source: string, name: string): DnsAddresses | undefined {
    const endpoints = this.endpointsOf(source);
    if (!endpoints) return undefined;
    const found = this.resolve(endpoints, name, undefined);
    if (found) return found;
    // NAME.NETWORK, where either part may hold dots: 'a.b.c' is 'a.b' on network 'c', then 'a' on 'b.c'
    for (let dot = name.lastIndexOf('.'); dot > 0; dot = name.lastIndexOf('.', dot - 1)) {
      const qualified = this.resolve(endpoints, name.slice(0, dot), name.slice(dot + 1));
      if (qualified) return qualified;
    }
    return undefined;
  }

  reverse(source: string, address: string): string[] | undefined {
    const endpoints = this.endpointsOf(source);
    if (!endpoints) return undefined;
    const key = canonicalAddress(address);
    for (const { network } of endpoints) {
      const holders = network.byAddress.get(key);
      if (holders) return holders.map((h) => `${h.containerName}.${network.name}`);
    }
    return undefined;
  }

  private endpointsOf(source: string): Endpoint[] | undefined {
    const containerId = this.queriers.get(source);
    return containerId === undefined ? undefined : this.containers.get(containerId);
  }

  /** The first of the querier's networks (or the one named) that knows `name` answers it. */
  private resolve(endpoints: Endpoint[], name: string, networkKey: string | undefined): DnsAddresses | undefined {
    // a link alias comes before the network's names, and hides one of the same spelling
    for (const ep of endpoints) {
      if (networkKey !== undefined && ep.network.key !== networkKey) continue;
      const target = ep.links.get(name);
      const entry = target === undefined ? undefined : ep.network.names.get(target);
      if (entry) return entry.take();
    }
    for (const ep of endpoints) {
      if (networkKey !== undefined && ep.network.key !== networkKey) continue;
      if (ep.links.has(name)) continue;
      const entry = ep.network.names.get(name);
      if (entry) return entry.take();
    }
    return undefined;
  }
}

/** The endpoints answering one name on one network; with several, their addresses take turns first (Docker shuffles them). */
class NameEntry {
  private endpoints: Endpoint[] = [];
  private addresses = NO_ADDRESSES;
  private turn = 0;

  add(ep: Endpoint): void {
    this.endpoints.push(ep);
    this.collect();
  }

  /** The number of endpoints left. */
  remove(ep: Endpoint): number {
    this.endpoints = this.endpoints.filter((e) => e !== ep);
    this.collect();
    return this.endpoints.length;
  }

  take(): DnsAddresses {
    const { a, aaaa } = this.addresses;
    if (a.length < 2 && aaaa.length < 2) return this.addresses;
    const turn = this.turn++;
    return { a: rotate(a, turn), aaaa: rotate(aaaa, turn) };
  }

  private collect(): void {
    const a = this.endpoints.flatMap((e) => (e.ipv4 === undefined ? [] : [e.ipv4]));
    const aaaa = this.endpoints.flatMap((e) => (e.ipv6 === undefined ? [] : [e.ipv6]));
    this.addresses = { a: [...new Set(a)], aaaa: [...new Set(aaaa)] };
  }
}
