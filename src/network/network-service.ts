// The networks and their endpoints: what the Network routes serve and what containers will call
// at start and stop. Every change is saved before memory and before the answer; the network
// events (create, destroy, prune) are published here, connect and disconnect by the containers.
import type { EventBus } from '../events/event-bus.js';
import { EngineError } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { buildEndpoint, type EndpointContainer, type EndpointSettings } from './endpoint-allocation.js';
import type { EndpointRecord, EndpointStore } from './endpoint-store.js';
import type { HostNetwork } from './host-network.js';
import { parseIp, type IpNet } from './ip-net.js';
import type { Ipam } from './ipam.js';
import type { NetworkCreateRequest } from './create-request.js';
import { buildNetwork, joinedSwarmNetwork, type CreateContext } from './network-create.js';
import { pruneSelection, selectNetworks } from './network-filters.js';
import { findNetwork } from './network-lookup.js';
import { isJoinedSwarmNetwork, isPredefined, type NetworkRecord } from './network-record.js';
import type { NetworkStore } from './network-store.js';

import type { ServiceInfoView } from './swarm-networks.js';

const GATEWAY_BRIDGE = 'docker_gwbridge';

/** A network with its endpoints, as inspect and list show it. */
export interface NetworkView {
  network: NetworkRecord;
  /** undefined for a swarm network as the managers list it: dockerd shows no Containers then */
  endpoints?: EndpointRecord[];
  /** a swarm network's services, for a verbose inspect */
  services?: Record<string, ServiceInfoView>;
}

export interface NetworkServiceDeps {
  networks: NetworkStore;
  endpoints: EndpointStore;
  ipam: Ipam;
  events: EventBus;
  host: HostNetwork;
}

export class NetworkService {
  private readonly networks: NetworkStore;
  private readonly endpoints: EndpointStore;
  private readonly ipam: Ipam;
  private readonly events: EventBus;
  private readonly host: HostNetwork;
  private makingGatewayBridge: Promise<NetworkRecord> | undefined;

  constructor(deps: NetworkServiceDeps) {
    this.networks = deps.networks;
    this.endpoints = deps.endpoints;
    this.ipam = deps.ipam;
    this.events = deps.events;
    this.host = deps.host;
  }

  /** A network of this node, or 'swarm' for one the swarm makes (an overlay on a manager). */
  async create(req: NetworkCreateRequest, swarmRole: CreateContext['swarmRole']): Promise<{ id: string; warning: string } | 'swarm'> {
    const built = buildNetwork(req, {
      networks: this.networks.all(),
      ipam: this.ipam,
      usedIn: (subnet) => this.usedIn(subnet),
      links: () => this.host.links(),
      swarmRole,
    });
    if (built === 'swarm') return built;
    await this.networks.put(built.record);
    this.publish('create', built.record);
    return { id: built.record.id, warning: built.warning };
  }

  /** GET /networks/{id}: by full ID, name or ID prefix, this node's networks before the swarm's (a joined one shows its containers); `scope` keeps those of that scope. */
  inspect(term: string, scope: string, swarm: readonly NetworkRecord[]): NetworkView {
    const views = this.nodeFirst(swarm).filter((v) => scope === '' || v.network.scope === scope);
    const found = findNetwork(views.map((v) => v.network), term, 'inspect');
    return views.find((v) => v.network === found)!;
  }

  /** GET /networks: the swarm's networks as the managers list them, then this node's others. */
  list(filters: FilterArgs, swarm: readonly NetworkRecord[]): NetworkView[] {
    const views = uniqueById([...swarm.map((network) => ({ network })), ...this.localViews()]);
    const uses = views.map((view) => ({ view, network: view.network, endpointCount: this.endpoints.on(view.network.id).length }));
    return selectNetworks(uses, filters).map((u) => u.view);
  }

  /** DELETE /networks/{id}: the network a term names, as shown (a swarm network is the swarm's to remove). */
  toRemove(term: string, swarm: readonly NetworkRecord[]): NetworkRecord {
    return findNetwork(this.nodeFirst(swarm).map((v) => v.network), term, 'remove');
  }

  /** The network removed (its plumbing is the caller's to undo, then finishRemoval). */
  async remove(term: string): Promise<NetworkRecord> {
    const network = findNetwork(this.networks.all().filter((n) => !isJoinedSwarmNetwork(n)), term, 'remove');
    if (isPredefined(network)) throw new EngineError('forbidden', `${network.name} is a pre-defined network and cannot be removed`);
    await this.destroy(network);
    return network;
  }

  /** The networks removed, in the order they were made (their plumbing is the caller's to undo, then finishRemoval). */
  async prune(filters: FilterArgs): Promise<NetworkRecord[]> {
    const prunable = pruneSelection(filters);
    const removed: NetworkRecord[] = [];
    // swarm networks go with their tasks
    for (const network of this.networks.all().filter((n) => !isJoinedSwarmNetwork(n))) {
      if (!prunable({ network, endpointCount: this.endpoints.on(network.id).length })) continue;
      await this.destroy(network);
      removed.push(network);
    }
    this.events.publish('network', 'prune', { id: '', attributes: { reclaimed: '0' } });
    return removed;
  }

  /** A network as the daemon finds one for a container (dockerd's FindNetwork): 404 or 400 in its words. */
  find(term: string): NetworkRecord {
    return findNetwork(this.networks.all(), term, 'daemon');
  }

  /** A swarm network a task joins, kept on this node unless it has it. */
  async joinSwarmNetwork(swarmNetwork: NetworkRecord): Promise<void> {
    if (this.networks.get(swarmNetwork.id) !== undefined) return;
    const record = joinedSwarmNetwork(swarmNetwork, { networks: this.networks.all(), ipam: this.ipam });
    await this.networks.put(record);
    this.publish('create', record);
  }

  /**
   * docker_gwbridge, made at the first need as libnetwork makes it: the bridge through which
   * containers on overlay networks (which route nowhere else) reach the outside, one that keeps
   * them apart from each other.
   */
  gatewayBridge(): Promise<NetworkRecord> {
    const known = this.networks.all().find((n) => n.name === GATEWAY_BRIDGE);
    if (known !== undefined) return Promise.resolve(known);
    const options = { 'com.docker.network.bridge.name': GATEWAY_BRIDGE, 'com.docker.network.bridge.enable_icc': 'false', 'com.docker.network.bridge.enable_ip_masquerade': 'true' };
    const req = { name: GATEWAY_BRIDGE, checkDuplicate: true, driver: 'bridge', scope: 'local', enableIPv6: false, ipam: null, internal: false, attachable: false, ingress: false, configOnly: false, configFrom: null, options, labels: null };
    // two containers starting at once make it once
    this.makingGatewayBridge ??= this.create(req, 'none')
      .then(() => this.find(GATEWAY_BRIDGE))
      .finally(() => (this.makingGatewayBridge = undefined));
    return this.makingGatewayBridge;
  }

  /** The swarm network left once it has no endpoint (its plumbing is the caller's to undo, then finishRemoval); undefined when it stays or is none. */
  async leaveSwarmNetwork(id: string): Promise<NetworkRecord | undefined> {
    const network = this.networks.get(id);
    if (network === undefined || !isJoinedSwarmNetwork(network) || this.endpoints.on(id).length > 0) return undefined;
    await this.destroy(network);
    return network;
  }

  /** Takes the container's addresses on the network and saves the endpoint before returning it. */
  async allocateEndpoint(network: NetworkRecord, container: EndpointContainer, settings: EndpointSettings, kind: Pick<EndpointRecord, 'egressOnly' | 'swarmAttachment'> = {}): Promise<EndpointRecord> {
    const built = buildEndpoint(network, container, settings, {
      usedIn: (subnet) => this.usedIn(subnet),
      endpointsOf: (id) => this.endpoints.of(id),
    });
    const endpoint: EndpointRecord = { ...built, ...kind };
    await this.endpoints.put(endpoint);
    return endpoint;
  }

  /** Gives the endpoint's addresses back; an endpoint already gone is no error. */
  async releaseEndpoint(endpointId: string): Promise<void> {
    if (this.endpoints.get(endpointId) !== undefined) await this.endpoints.delete(endpointId);
  }

  /** Keeps what the plumbing needs to undo the attachment (the CNI result) with the endpoint. */
  async setPlumbing(endpointId: string, plumbing: unknown): Promise<EndpointRecord> {
    const endpoint = this.endpoints.get(endpointId);
    if (endpoint === undefined) throw new Error(`no endpoint ${endpointId}`);
    const updated = { ...endpoint, plumbing };
    await this.endpoints.put(updated);
    return updated;
  }

  endpointsOf(containerId: string): EndpointRecord[] {
    return this.endpoints.of(containerId);
  }

  endpointsOn(networkId: string): EndpointRecord[] {
    return this.endpoints.on(networkId);
  }

  /** The swarm networks this node has joined. */
  joinedSwarmNetworks(): NetworkRecord[] {
    return this.networks.all().filter(isJoinedSwarmNetwork);
  }

  /** Every endpoint, for the reconciliation at start. */
  allEndpoints(): EndpointRecord[] {
    return this.endpoints.all();
  }

  private async destroy(network: NetworkRecord): Promise<void> {
    if (this.endpoints.on(network.id).length > 0) {
      throw new EngineError('forbidden', `error while removing network: network ${network.name} id ${network.id} has active endpoints`);
    }
    await this.networks.beginRemoval(network.id);
    this.publish('destroy', network);
  }

  /** The removed network's plumbing is undone: its record goes for good. */
  async finishRemoval(network: NetworkRecord): Promise<void> {
    await this.networks.finishRemoval(network.id);
  }

  /** Networks removed whose plumbing the daemon's end left (a kill between the record and the bridge). */
  unfinishedRemovals(): NetworkRecord[] {
    return this.networks.unfinishedRemovals();
  }

  /** This node's networks as shown, with their endpoints. */
  private localViews(): NetworkView[] {
    return this.networks.all().map((network) => ({ network, endpoints: this.endpoints.on(network.id) }));
  }

  /** This node's networks, then the swarm's it has none of: how dockerd's router looks one up. */
  private nodeFirst(swarm: readonly NetworkRecord[]): NetworkView[] {
    return uniqueById([...this.localViews(), ...swarm.map((network) => ({ network }))]);
  }

  private publish(action: string, network: NetworkRecord): void {
    this.events.publish('network', action, { id: network.id, attributes: { name: network.name, type: network.driver } });
  }

  /** Every address taken in a subnet: the gateways and auxiliary addresses of the networks on it, and their endpoints'. */
  private usedIn(subnet: IpNet): Set<bigint> {
    const key = subnet.toString();
    const used = new Set<bigint>();
    const add = (text: string | undefined) => {
      const ip = text === undefined ? undefined : parseIp(text.replace(/\/\d+$/, ''));
      if (ip !== undefined && subnet.contains(ip)) used.add(ip.value);
    };
    for (const network of this.networks.all()) {
      const pools = network.ipam.config.filter((p) => p.subnet === key && p.gateway !== undefined);
      if (pools.length === 0) continue;
      for (const pool of pools) {
        add(pool.gateway);
        for (const aux of Object.values(pool.requested?.auxAddresses ?? {})) add(aux);
      }
      for (const endpoint of this.endpoints.on(network.id)) {
        add(endpoint.ipv4Address);
        add(endpoint.ipv6Address);
      }
    }
    return used;
  }
}

/** The first view of each ID, as dockerd's router skips a network it has listed already. */
function uniqueById(views: readonly NetworkView[]): NetworkView[] {
  const seen = new Set<string>();
  return views.filter((v) => !seen.has(v.network.id) && seen.add(v.network.id));
}
