// The names of containers on user-defined networks, kept in memory for the embedded DNS server.
// The network area adds and removes networks and endpoints; the server asks lookup() and
// reverse() for every query, so each is a few map reads. Names follow Docker's resolver
// (libnetwork sandbox.ResolveName, network.ResolveIP): per network, the container name, its
// aliases and its short ID; NAME.NETWORK for a network the querier is on; `--link` aliases only
// for the container that made the link; PTR answers `name.network`. On a swarm network the names
// are the endpoint records' (swarm-names.ts): a container's endpoint there only makes its address
// a querier, and those networks are asked first, as a swarm node's sandbox orders them.
import { canonicalAddress } from './canonical-address.js';
import type { DnsAddresses, DnsRecords, DnsServiceTarget } from './dns-records.js';
import { rotate } from './rotate.js';
import { parseSrvName } from './srv-name.js';
import { SwarmNames } from './swarm-names.js';

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
  /** An overlay network of the swarm: its names are the swarm's, none are its endpoints'. */
  swarm: boolean;
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
  /** The swarm agent applies endpoint records there; the names of networks added with `swarm` come from it. */
  readonly swarm: SwarmNames;
  private readonly networks = new Map<string, Network>();
  /** Each container's endpoints in the order it joined their networks: the order names are looked for (its swarm networks first) and PTR asks. */
  private readonly containers = new Map<string, Endpoint[]>();
  /** Container addresses on every network, to know a querier by its source address. */
  private readonly queriers = new Map<string, string>();

  constructor(swarm = new SwarmNames()) {
    this.swarm = swarm;
  }

  get version(): number {
    return this.changes + this.swarm.version;
  }

  /** `swarm` for an overlay network of the swarm, whose names are the swarm's (the same ID given to `swarm.addNetwork`). */
  addNetwork(id: string, name: string, { swarm = false }: { swarm?: boolean } = {}): void {
    if (this.networks.has(id)) return;
    this.changes++;
    this.networks.set(id, { id, name, key: name.toLowerCase(), swarm, names: new Map(), byAddress: new Map(), endpoints: new Map() });
  }

  removeNetwork(id: string): void {
    const network = this.networks.get(id);
    if (!network) return;
    for (const containerId of [...network.endpoints.keys()]) this.removeEndpoint(id, containerId);
    this.networks.delete(id);
    this.changes++;
  }

  /** Adds the container's endpoint on the network, replacing the one it had there; on a swarm network, its addresses only (to know the querier). */
  addEndpoint(networkId: string, endpoint: DnsEndpoint): void {
    const network = this.networks.get(networkId);
    if (!network) throw new Error(`DNS registry: no network ${networkId}`);
    this.removeEndpoint(networkId, endpoint.containerId);
    this.changes++;
    const ipv6 = endpoint.ipv6 === undefined ? undefined : canonicalAddress(endpoint.ipv6);
    const keys = network.swarm ? [] : [endpoint.containerName, ...(endpoint.aliases ?? []), endpoint.containerId.slice(0, SHORT_ID_LENGTH)];
    const links = network.swarm ? [] : Object.entries(endpoint.links ?? {});
    const ep: Endpoint = {
      network,
      containerId: endpoint.containerId,
      containerName: endpoint.containerName,
      keys: [...new Set(keys.map((n) => n.toLowerCase()))],
      links: new Map(links.map(([alias, target]) => [alias.toLowerCase(), target.toLowerCase()])),
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
      if (!network.swarm) network.byAddress.set(address, [...(network.byAddress.get(address) ?? []), ep]);
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

  /** Also knows the container by `address`, where it has no names: a task's docker_gwbridge leg, from which it sends its DNS queries. */
  addQuerier(containerId: string, address: string): void {
    this.changes++;
    this.queriers.set(canonicalAddress(address), containerId);
  }

  removeQuerier(address: string): void {
    if (this.queriers.delete(canonicalAddress(address))) this.changes++;
  }

  lookup(source: string, name: string): DnsAddresses | undefined {
    const endpoints = this.endpointsOf(source);
    if (!endpoints) return undefined;
    for (const [short, networkKey] of qualifications(name)) {
      const found = this.resolve(endpoints, short, networkKey);
      if (found) return found;
    }
    return undefined;
  }

  reverse(source: string, address: string): string[] | undefined {
    const endpoints = this.endpointsOf(source);
    if (!endpoints) return undefined;
    const key = canonicalAddress(address);
    for (const { network } of endpoints) {
      if (network.swarm) {
        const name = this.swarm.reverse(network.id, key);
        if (name !== undefined) return [name];
        continue;
      }
      const holders = network.byAddress.get(key);
      if (holders) return holders.map((h) => `${h.containerName}.${network.name}`);
    }
    return undefined;
  }

  /** SRV names are the swarm's; the first of the querier's swarm networks with targets answers (sandbox.ResolveService). */
  service(source: string, name: string): readonly DnsServiceTarget[] | undefined {
    const srv = parseSrvName(name);
    const endpoints = srv && this.endpointsOf(source);
    if (!srv || !endpoints) return undefined;
    let ours = false;
    for (const [service, networkKey] of qualifications(srv.rest)) {
      for (const { network } of endpoints) {
        if (!network.swarm) continue;
        const targets = this.swarm.service(network.id, service, srv.portName, srv.protocol, networkKey);
        if (targets && targets.length > 0) return targets;
        ours ||= targets !== undefined;
      }
    }
    return ours ? [] : undefined;
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
    // swarm networks first, as Docker's sandbox orders them on a swarm node (sandbox.ResolveName)
    for (const ep of endpoints) {
      if (!ep.network.swarm) continue;
      const found = this.swarm.lookup(ep.network.id, name, networkKey);
      if (found) return found;
    }
    for (const ep of endpoints) {
      if (ep.network.swarm || (networkKey !== undefined && ep.network.key !== networkKey)) continue;
      if (ep.links.has(name)) continue;
      const entry = ep.network.names.get(name);
      if (entry) return entry.take();
    }
    return undefined;
  }
}

/** `name` unqualified, then as NAME.NETWORK where either part may hold dots: 'a.b.c' is 'a.b' on network 'c', then 'a' on 'b.c'. */
function* qualifications(name: string): Generator<[name: string, networkKey: string | undefined]> {
  yield [name, undefined];
  for (let dot = name.lastIndexOf('.'); dot > 0; dot = name.lastIndexOf('.', dot - 1)) yield [name.slice(0, dot), name.slice(dot + 1)];
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
