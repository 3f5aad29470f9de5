// A container's networking for one run, made in two halves and undone when the run ends: before
// `runc create`, its network namespace (a file under the exec root, which runc joins), an endpoint
// on each of its networks (the address allocated and saved) and its published ports (held); then,
// while runc creates the container, the endpoints plumbed by the CNI plugins (whose result is kept
// for the DEL; portmap DNATs the ports) and its names in the embedded DNS server for user-defined
// networks, whose resolver is its first such network's gateway. An overlay network's endpoint is the
// overlay driver's (overlay/overlay-networks.ts), not the plugins'; a container whose networks are
// all overlays gets a leg on docker_gwbridge as well, its way out and to the DNS server, as
// libnetwork gives it one. Anything that fails undoes what was done, so a container is never left
// half-wired.
// After a restart of berthd, reconcile() keeps what live containers have and undoes the rest.
import path from 'node:path';
import type { Logger } from 'pino';
import { EngineError } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { Cni } from '../runtime/cni.js';
import type { CniNetworkConfigList, CniResult } from '../runtime/cni-config.js';
import type { FilterArgs } from '../lib/filters.js';
import { createNetns, deleteLink, ensureParentLink, listNetns, removeNetns } from '../runtime/netns.js';
import { endpointConfList, type PortMapping } from './cni-lists.js';
import type { DnsRegistry } from './dns/dns-registry.js';
import type { DnsServer } from './dns/dns-server.js';
import type { EndpointRecord } from './endpoint-store.js';
import type { NetworkFirewall } from './network-firewall.js';
import { defaultToBridge, isJoinedSwarmNetwork, type NetworkRecord } from './network-record.js';
import type { SwarmNetworks } from './swarm-networks.js';
import type { EndpointSettings } from './endpoint-allocation.js';
import type { OverlayNetworks } from './overlay/overlay-networks.js';
import type { ServiceBalancers } from './service-lb/service-balancers.js';
import type { NetworkService } from './network-service.js';
import { portRequests, type PublishedPorts } from './published-ports.js';
import type { UpstreamResolvers } from './upstream-resolvers.js';

/** The container, as far as its networking goes (Docker's own shapes). */
export interface NetworkedContainer {
  id: string;
  /** without its leading slash */
  name: string;
  exposedPorts?: Record<string, unknown> | null;
  macAddress?: string;
  networkMode: string;
  /** Config.NetworkDisabled: a namespace with loopback alone, and no endpoint on any network */
  networkDisabled?: boolean;
  portBindings?: Record<string, Array<{ HostIp?: string; HostPort?: string }> | null> | null;
  publishAllPorts?: boolean;
  /** Links as given (`name:alias`) */
  links?: string[] | null;
  /** HostConfig.Dns: where the embedded DNS server forwards for it */
  dns?: string[] | null;
  endpointsConfig?: Record<string, EndpointConfig | null> | null;
  /** a swarm task's container, or the routing mesh's sandbox: its addresses on swarm networks are the managers' already */
  addressedBySwarm?: boolean;
}

export interface EndpointConfig {
  IPAMConfig?: { IPv4Address?: string; IPv6Address?: string } | null;
  Aliases?: string[] | null;
  Links?: string[] | null;
}

export interface NetworkAttachment {
  /** the namespace the container joins; undefined for the host's */
  netnsPath?: string;
  /** its first endpoint's IPv4 address (for /etc/hosts) */
  address?: string;
  /** the embedded DNS server's address, for a container on a user-defined network */
  resolver?: string;
  ports: PortMapping[];
  /** the default bridge's gateway: what ExtraHosts' host-gateway names */
  hostGateway?: string;
  /** the daemon's `dns` servers, for a resolv.conf the container's own Dns does not write */
  dns: readonly string[];
}

/** What an overlay endpoint's plumbing keeps: its address, by which the overlay driver detaches it. */
interface OverlayPlumbing {
  overlay: { ip: string };
}

/**
 * What DEL needs of an ADD, kept on the endpoint's record, with the ports it published (held again
 * after a restart). Saved before the ADD too, without its result, so that a berthd killed during
 * the ADD still undoes what the plugins made (portmap's chains) at its next start.
 */
interface Plumbing {
  list: CniNetworkConfigList;
  result?: CniResult;
  ports: PortMapping[];
}

export interface NetworkAttachmentsDeps {
  service: NetworkService;
  cni: Cni;
  overlay: OverlayNetworks;
  /** the service VIPs a container on swarm networks balances */
  balancers: Pick<ServiceBalancers, 'program'>;
  firewall: NetworkFirewall;
  ports: PublishedPorts;
  dns: { registry: DnsRegistry; server: DnsServer; upstreams: UpstreamResolvers };
  events: EventBus;
  /** the daemon's `dns` setting */
  daemonDns: readonly string[];
  /** where the namespaces' files go: <exec-root>/netns */
  netnsDir: string;
  /** the names of the host's interfaces: a macvlan or ipvlan parent must be one */
  hostLinks: () => string[];
  log: Logger;
}

/** An endpoint prepare() allocated, for plumb() to plumb. */
interface PlannedEndpoint {
  network: NetworkRecord;
  endpoint: EndpointRecord;
  ports: PortMapping[];
  defaultRoute: boolean;
}

export class NetworkAttachments {
  /** the DNS server's listeners by gateway; a promise, so that two containers starting at once on a new network listen once */
  private readonly resolvers = new Map<string, Promise<void>>();
  /** prepared runs, by container, until plumbed or detached */
  private readonly planned = new Map<string, PlannedEndpoint[]>();
  private swarm: Pick<SwarmNetworks, 'attach' | 'detach'> | undefined;
  private readonly attachmentWatchers = new Set<() => void>();

  constructor(private readonly deps: NetworkAttachmentsDeps) {}

  netnsPath(containerId: string): string {
    return path.join(this.deps.netnsDir, containerId);
  }

  /** The host ports the container publishes now. */
  portsOf(containerId: string): PortMapping[] {
    return this.deps.service.endpointsOf(containerId).flatMap((e) => (e.plumbing as Plumbing | undefined)?.ports ?? []);
  }

  /** DELETE /networks/{id}: the record goes (403 with endpoints), then its bridge, rules and DNS server. */
  async removeNetwork(term: string): Promise<void> {
    await this.unplumbNetwork(await this.deps.service.remove(term));
  }

  /** POST /networks/prune: the names of the networks removed. */
  async pruneNetworks(filters: FilterArgs): Promise<string[]> {
    const removed = await this.deps.service.prune(filters);
    for (const network of removed) await this.unplumbNetwork(network);
    return removed.map((n) => n.name);
  }

  /** A swarm network goes from this node once no endpoint is on it. */
  async leaveSwarmNetwork(id: string): Promise<void> {
    const removed = await this.deps.service.leaveSwarmNetwork(id);
    if (removed !== undefined) await this.unplumbNetwork(removed);
  }

  /** At start: the removals an earlier daemon began and did not finish lose their bridge and rules now. */
  async finishRemovals(): Promise<void> {
    for (const network of this.deps.service.unfinishedRemovals()) {
      this.deps.log.info({ network: network.name, id: network.id }, 'finishing an interrupted network removal');
      await this.unplumbNetwork(network);
    }
  }

  /** Stops serving DNS; the plumbing stays for the containers that run on. */
  async shutdown(): Promise<void> {
    await this.deps.dns.server.closeAll();
  }

  /**
   * The first half of a run's wiring, before `runc create`: the namespace (host networking needs
   * none; `none` and NetworkDisabled one with loopback alone), the endpoints' addresses allocated
   * and saved, the host ports held: all that the spec and the /etc files need. The plugins' work
   * is plumb()'s, while runc creates the container.
   */
  async prepare(c: NetworkedContainer): Promise<NetworkAttachment> {
    if (c.networkDisabled) {
      await createNetns(this.netnsPath(c.id));
      return { netnsPath: this.netnsPath(c.id), ports: [], dns: this.deps.daemonDns };
    }
    const attached = c.addressedBySwarm ? new Map<string, string>() : await this.attachSwarmNetworks(c);
    let networks: ReturnType<NetworkAttachments['networksOf']>;
    try {
      networks = this.networksOf(c, attached);
    } catch (err) {
      // another network it names is none: the addresses the swarm gave it go back
      if (attached.size > 0) await this.swarm?.detach(c.id).catch(() => undefined);
      throw err;
    }
    if (networks[0]?.network.driver === 'host') {
      await this.deps.service.allocateEndpoint(networks[0].network, { id: c.id, name: c.name }, { aliases: [], links: [] });
      return { ports: [], hostGateway: this.hostGateway(), dns: this.deps.daemonDns };
    }
    const netnsPath = this.netnsPath(c.id);
    try {
      await createNetns(netnsPath);
      const planned: PlannedEndpoint[] = [];
      let ports: PortMapping[] = [];
      let resolver: string | undefined;
      let address: string | undefined;
      let routed = false;
      const plan = async (network: NetworkRecord, endpoint: EndpointRecord) => {
        // ports go with the endpoint that routes, as dockerd publishes them on its gateway endpoint
        const defaultRoute = !routed && !network.internal && network.driver !== 'overlay';
        if (defaultRoute) {
          routed = true;
          const requests = portRequests(c.exposedPorts, c.portBindings, c.publishAllPorts === true);
          if (requests.length > 0) ports = await this.deps.ports.publish(c.id, requests, { name: c.name, id: endpoint.id });
        }
        planned.push({ network, endpoint, ports: defaultRoute ? ports : [], defaultRoute });
      };
      for (const [i, { network, settings, swarmAttachment }] of networks.entries()) {
        const endpoint = await this.deps.service.allocateEndpoint(network, { id: c.id, name: c.name, ...(i === 0 && c.macAddress ? { macAddress: c.macAddress } : {}) }, settings, swarmAttachment ? { swarmAttachment } : {});
        if (network.driver === 'null') continue;
        await plan(network, endpoint);
        address ??= endpoint.ipv4Address?.split('/')[0];
        if (isUserDefined(network) && network.driver === 'bridge') resolver ??= endpoint.gateway;
      }
      if (!routed && networks.some((n) => n.network.driver === 'overlay')) {
        const gateway = await this.deps.service.gatewayBridge();
        const endpoint = await this.deps.service.allocateEndpoint(gateway, { id: c.id, name: c.name }, { aliases: [], links: [] }, { egressOnly: true });
        await plan(gateway, endpoint);
        resolver ??= endpoint.gateway;
      }
      this.planned.set(c.id, planned);
      const addresses = this.addressesOf(c.id);
      if (c.dns?.length) this.deps.dns.upstreams.set(addresses, c.dns);
      else if (!routed) this.deps.dns.upstreams.set(addresses, []);
      return { netnsPath, address, resolver, ports, hostGateway: this.hostGateway(), dns: this.deps.daemonDns };
    } catch (err) {
      await this.detach(c.id).catch((e: unknown) => this.deps.log.warn({ err: e, id: c.id }, 'undoing a failed network attachment'));
      throw err;
    }
  }

  /**
   * The second half: each prepared endpoint plumbed by the CNI plugins (its network's rules and
   * parent link first), its names served. A failure leaves the undoing to detach(), which the
   * runner calls as it clears the failed start.
   */
  async plumb(containerId: string): Promise<void> {
    const planned = this.planned.get(containerId) ?? [];
    this.planned.delete(containerId);
    for (const { network, endpoint, ports, defaultRoute } of planned) {
      await this.plumbEndpoint(network, endpoint, containerId, this.netnsPath(containerId), { ports, defaultRoute });
      if (endpoint.egressOnly) await this.serveQuerier(endpoint);
      else if (isUserDefined(network)) await this.serveDns(network, endpoint);
      if (!endpoint.egressOnly) this.publish('connect', network, containerId);
    }
    // its services' VIPs answer from its first instruction
    if (planned.some((p) => p.network.driver === 'overlay')) await this.deps.balancers.program(containerId, this.netnsPath(containerId));
    if (planned.some((p) => p.endpoint.swarmAttachment)) this.notifyAttachments();
  }

  /** Undoes a run's networking; what is already gone is no error (a crash may have come between). */
  async detach(containerId: string): Promise<void> {
    this.planned.delete(containerId);
    const netnsPath = this.netnsPath(containerId);
    this.deps.dns.upstreams.forget(this.addressesOf(containerId));
    const endpoints = [...this.deps.service.endpointsOf(containerId)].reverse();
    for (const endpoint of endpoints) await this.undo(endpoint, this.deps.service.find(endpoint.networkId), { namespaceGoes: true });
    this.deps.ports.release(containerId);
    await removeNetns(netnsPath);
    const attachments = endpoints.filter((e) => e.swarmAttachment);
    if (attachments.length === 0) return;
    this.notifyAttachments();
    await this.swarm?.detach(containerId).catch((err: unknown) => this.deps.log.warn({ err, id: containerId }, 'a swarm network address not given back'));
    for (const e of attachments) await this.leaveSwarmNetwork(e.networkId);
  }

  /** Binds the swarm, which gives plain containers their addresses on attachable swarm networks. */
  bindSwarm(swarm: Pick<SwarmNetworks, 'attach' | 'detach'>): void {
    this.swarm = swarm;
  }

  /** This node's plain containers on attachable swarm networks, once plumbed: what the swarm publishes of them. */
  attachedEndpoints(): Array<{ networkId: string; endpointId: string; name: string; address: string; mac: string; aliases: string[] }> {
    return this.deps.service
      .allEndpoints()
      .filter((e) => e.swarmAttachment && e.plumbing !== undefined && e.ipv4Address !== undefined)
      .map((e) => ({ networkId: e.networkId, endpointId: e.id, name: e.containerName, address: e.ipv4Address!, mac: e.macAddress, aliases: [...e.aliases, e.containerId.slice(0, 12)] }));
  }

  /** Calls `listener` whenever attachedEndpoints() may have changed; the cancel function. */
  watchAttachments(listener: () => void): () => void {
    this.attachmentWatchers.add(listener);
    return () => this.attachmentWatchers.delete(listener);
  }

  private notifyAttachments(): void {
    for (const listener of this.attachmentWatchers) listener();
  }

  /** Joins a running container to one more network, hot-plugged into its namespace; the network's record. */
  async connect(c: NetworkedContainer, term: string, config: EndpointConfig | null): Promise<NetworkRecord> {
    const network = this.deps.service.find(term);
    const endpoint = await this.deps.service.allocateEndpoint(network, { id: c.id, name: c.name }, endpointSettings(config, []));
    try {
      if (network.driver !== 'null' && network.driver !== 'host') {
        await this.plumbEndpoint(network, endpoint, c.id, this.netnsPath(c.id), { ports: [], defaultRoute: false });
        if (isUserDefined(network)) await this.serveDns(network, endpoint);
      }
    } catch (err) {
      this.deps.dns.registry.removeEndpoint(network.id, c.id);
      await this.deps.service.releaseEndpoint(endpoint.id);
      throw err;
    }
    this.publish('connect', network, c.id);
    return network;
  }

  /** Takes a running container off a network: its endpoint unplumbed and released; the network's record. */
  async disconnect(containerId: string, term: string): Promise<NetworkRecord> {
    const network = this.deps.service.find(term);
    const endpoint = this.deps.service.endpointsOf(containerId).find((e) => e.networkId === network.id);
    if (endpoint !== undefined) await this.undo(endpoint, network, { namespaceGoes: false });
    return network;
  }

  /**
   * After a restart of berthd: the endpoints of containers whose run lives on are served again
   * (DNS names, held ports); those of others, and namespaces no container owns, are undone.
   */
  async reconcile(live: readonly NetworkedContainer[]): Promise<void> {
    const liveIds = new Set(live.map((c) => c.id));
    const owners = new Set(this.deps.service.allEndpoints().map((e) => e.containerId));
    for (const id of owners) if (!liveIds.has(id)) await this.detach(id);
    for (const file of await listNetns(this.deps.netnsDir)) {
      if (!liveIds.has(path.basename(file.path))) await removeNetns(file.path);
    }
    for (const c of live) {
      for (const endpoint of this.deps.service.endpointsOf(c.id)) {
        if (endpoint.plumbing === undefined || isOverlayPlumbing(endpoint.plumbing)) continue;
        const plumbing = endpoint.plumbing as Plumbing;
        // the ports DNAT'd before the restart, held again at the same host ports
        const held = plumbing.ports.map((p) => ({ containerPort: p.containerPort, protocol: p.protocol, hostIp: p.hostIP ?? '', hostPorts: [p.hostPort, p.hostPort] as [number, number] }));
        if (held.length > 0) {
          await this.deps.ports.publish(c.id, held, { name: c.name, id: endpoint.id }).catch((err: unknown) => this.deps.log.warn({ err, id: c.id }, 'holding the published ports again'));
        }
        const network = this.deps.service.find(endpoint.networkId);
        if (network.driver === 'bridge') await this.deps.firewall.plumb(network);
        if (endpoint.egressOnly) await this.serveQuerier(endpoint);
        else if (isUserDefined(network)) await this.serveDns(network, endpoint);
      }
    }
  }

  /**
   * Takes the endpoint away. When its namespace goes next, only portmap's DEL is needed: the
   * bridge, macvlan and ipvlan plugins' DEL (with berth's static IPAM) deletes the interface in the
   * namespace and nothing else, and the namespace's removal deletes it (and a veth's peer) in the
   * kernel's own time, where the plugin's DEL waits tens of milliseconds for it.
   */
  private async undo(endpoint: EndpointRecord, network: NetworkRecord, opts: { namespaceGoes: boolean }): Promise<void> {
    const { containerId } = endpoint;
    this.deps.dns.registry.removeEndpoint(endpoint.networkId, containerId);
    if (endpoint.egressOnly && endpoint.ipv4Address !== undefined) this.deps.dns.registry.removeQuerier(endpoint.ipv4Address.split('/')[0]!);
    if (isOverlayPlumbing(endpoint.plumbing)) {
      await this.deps.overlay.detach(endpoint.networkId, endpoint.plumbing.overlay.ip).catch((err: unknown) => this.deps.log.warn({ err, id: containerId, network: network.name }, 'undoing an overlay endpoint'));
      await this.deps.service.releaseEndpoint(endpoint.id);
      this.publish('disconnect', network, containerId);
      return;
    }
    const plumbing = endpoint.plumbing as Plumbing | undefined;
    const outsideState = plumbing?.list.plugins.some((p) => p.type === 'portmap') ?? false;
    // portmap's DEL removes nothing unless given the port mappings its ADD was given
    const capabilityArgs = plumbing !== undefined && plumbing.ports.length > 0 ? { portMappings: plumbing.ports } : {};
    if (plumbing !== undefined && (!opts.namespaceGoes || outsideState)) {
      // a DEL that fails (macvlan's refuses the configuration its ADD refused) must not keep the
      // address and the namespace: the interfaces in the namespace go with it all the same
      await this.deps.cni
        .del(plumbing.list, { containerId, netns: this.netnsPath(containerId), ifName: endpoint.ifName, capabilityArgs }, plumbing.result)
        .catch((err: unknown) => this.deps.log.warn({ err, id: containerId, network: network.name }, 'undoing an endpoint: the CNI DEL failed'));
    }
    await this.deps.service.releaseEndpoint(endpoint.id);
    if (!endpoint.egressOnly) this.publish('disconnect', network, containerId);
  }

  private hostGateway(): string | undefined {
    return this.deps.service.find('bridge').ipam.config.find((p) => p.gateway !== undefined && !p.subnet.includes(':'))?.gateway;
  }

  /** The container's addresses on its networks: how the DNS server knows it. */
  private addressesOf(containerId: string): string[] {
    return this.deps.service.endpointsOf(containerId).flatMap((e) => [e.ipv4Address, e.ipv6Address].filter((a): a is string => a !== undefined).map((a) => a.split('/')[0]));
  }

  private async plumbEndpoint(network: NetworkRecord, endpoint: EndpointRecord, containerId: string, netnsPath: string, opts: { ports: PortMapping[]; defaultRoute: boolean }): Promise<void> {
    if (network.driver === 'overlay') {
      const [ip, prefix] = (endpoint.ipv4Address ?? '').split('/');
      if (ip === undefined || prefix === undefined) throw new EngineError('system', `no IPv4 address on overlay network ${network.name}`);
      await this.deps.service.setPlumbing(endpoint.id, { overlay: { ip } } satisfies OverlayPlumbing);
      await this.deps.overlay.attach(network, netnsPath, { ip, prefixLen: Number(prefix), ifName: endpoint.ifName, mac: endpoint.macAddress });
      return;
    }
    if (network.driver === 'bridge') await this.deps.firewall.plumb(network);
    if (network.madeParent !== undefined && network.parent !== undefined) {
      await ensureParentLink(network.parent, network.madeParent);
    } else if ((network.driver === 'macvlan' || network.driver === 'ipvlan') && network.parent !== undefined && !this.deps.hostLinks().includes(network.parent)) {
      // the plugins say only "Link not found" of a parent that went since the network was made; dockerd's Join names it
      throw new EngineError('system', `the requested parent interface ${network.parent} was not found on the Docker host`);
    }
    const list = endpointConfList(network, endpoint, opts);
    await this.deps.service.setPlumbing(endpoint.id, { list, ports: opts.ports } satisfies Plumbing);
    const result = await this.deps.cni.add(list, { containerId, netns: netnsPath, ifName: endpoint.ifName, capabilityArgs: opts.ports.length > 0 ? { portMappings: opts.ports } : {} });
    await this.deps.service.setPlumbing(endpoint.id, { list, result, ports: opts.ports } satisfies Plumbing);
  }

  /** Registers the endpoint's names, and serves DNS on its network's gateway (made by the bridge plugin's ADD). */
  private async serveDns(network: NetworkRecord, endpoint: EndpointRecord): Promise<void> {
    const { registry } = this.deps.dns;
    registry.addNetwork(network.id, network.name, { swarm: network.driver === 'overlay' });
    registry.addEndpoint(network.id, {
      containerId: endpoint.containerId,
      containerName: endpoint.containerName,
      aliases: endpoint.aliases,
      links: linkAliases(endpoint.links),
      ipv4: endpoint.ipv4Address?.split('/')[0],
      ipv6: endpoint.ipv6Address?.split('/')[0],
    });
    // macvlan and ipvlan gateways are not berthd's: their containers use the host's resolvers
    if (network.driver === 'bridge') await this.serveDnsOn(endpoint.gateway);
  }

  /** A docker_gwbridge leg: its address is the container's for the DNS server, which serves on its gateway, but it has no names. */
  private async serveQuerier(endpoint: EndpointRecord): Promise<void> {
    const address = endpoint.ipv4Address?.split('/')[0];
    if (address !== undefined) this.deps.dns.registry.addQuerier(endpoint.containerId, address);
    await this.serveDnsOn(endpoint.gateway);
  }

  /** Serves DNS on a bridge's gateway (made by the bridge plugin's ADD). */
  private async serveDnsOn(gateway: string | undefined): Promise<void> {
    if (gateway === undefined) return;
    const { server } = this.deps.dns;
    let listening = this.resolvers.get(gateway);
    if (listening === undefined) {
      listening = server.listen(gateway);
      this.resolvers.set(gateway, listening);
      // a failed listen is tried again by the next container
      listening.catch(() => this.resolvers.delete(gateway));
    }
    await listening;
  }

  /**
   * The container's networks in order: the one its NetworkMode names, then the others of
   * EndpointsConfig; `attached` the addresses the managers gave it on swarm networks, by name.
   */
  private networksOf(c: NetworkedContainer, attached: ReadonlyMap<string, string>): Array<{ network: NetworkRecord; settings: EndpointSettings; swarmAttachment: boolean }> {
    const mode = defaultToBridge(c.networkMode);
    const configs = c.endpointsConfig ?? {};
    const first = this.deps.service.find(mode);
    const names = [mode, ...Object.keys(configs).filter((n) => ![first.name, first.id].includes(defaultToBridge(n)))];
    return names.map((name, i) => {
      const network = i === 0 ? first : this.deps.service.find(name);
      const config = configs[name] ?? configs[network.name] ?? configs[network.id] ?? (network.name === 'bridge' ? configs.default : undefined) ?? null;
      const settings = endpointSettings(config, i === 0 ? (c.links ?? []) : []);
      const address = attached.get(name);
      return { network, settings: address !== undefined ? { ...settings, ipv4: address } : settings, swarmAttachment: address !== undefined };
    });
  }

  /**
   * The swarm networks a plain container names (none of this node's own, or one this node keeps
   * for its tasks), each joined with the address a manager gives the container on it, as dockerd
   * asks swarmkit for an attachment: that address, by the name the container gave.
   */
  private async attachSwarmNetworks(c: NetworkedContainer): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (this.swarm === undefined) return out;
    for (const name of new Set([defaultToBridge(c.networkMode), ...Object.keys(c.endpointsConfig ?? {})])) {
      const local = this.findIfAny(name);
      if (local !== undefined && !isJoinedSwarmNetwork(local)) continue;
      const given = await this.swarm.attach(name, c.id);
      if (given === undefined) continue;
      await this.deps.service.joinSwarmNetwork(given.network);
      out.set(name, given.address.split('/')[0]!);
    }
    return out;
  }

  private findIfAny(term: string): NetworkRecord | undefined {
    try {
      return this.deps.service.find(term);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'notFound') return undefined;
      throw err;
    }
  }

  private async unplumbNetwork(network: NetworkRecord): Promise<void> {
    this.deps.dns.registry.removeNetwork(network.id);
    for (const pool of network.ipam.config) {
      if (pool.gateway !== undefined && this.resolvers.delete(pool.gateway)) await this.deps.dns.server.close(pool.gateway);
    }
    if (network.driver === 'overlay') await this.deps.overlay.remove(network.id);
    if (network.madeParent !== undefined && network.parent !== undefined) await deleteLink(network.parent);
    if (network.driver === 'bridge' && network.bridgeName !== undefined) {
      await this.deps.firewall.unplumb(network);
      await deleteLink(network.bridgeName);
    }
    await this.deps.service.finishRemoval(network);
  }

  private publish(action: 'connect' | 'disconnect', network: NetworkRecord, containerId: string): void {
    this.deps.events.publish('network', action, { id: network.id, attributes: { container: containerId, name: network.name, type: network.driver } });
  }
}

function isOverlayPlumbing(plumbing: unknown): plumbing is OverlayPlumbing {
  return typeof plumbing === 'object' && plumbing !== null && 'overlay' in plumbing;
}

/** What an EndpointConfig asks of an endpoint (with the container's legacy links on its first network). */
function endpointSettings(config: EndpointConfig | null, legacyLinks: readonly string[]): { ipv4?: string; ipv6?: string; aliases: string[]; links: string[] } {
  return {
    ...(config?.IPAMConfig?.IPv4Address ? { ipv4: config.IPAMConfig.IPv4Address } : {}),
    ...(config?.IPAMConfig?.IPv6Address ? { ipv6: config.IPAMConfig.IPv6Address } : {}),
    aliases: config?.Aliases ?? [],
    links: [...legacyLinks, ...(config?.Links ?? [])],
  };
}


/** A network of the user's making, or the swarm's: its containers resolve names (the default bridge's do not). */
function isUserDefined(network: NetworkRecord): boolean {
  return network.name !== 'bridge' && (network.driver === 'bridge' || network.driver === 'macvlan' || network.driver === 'ipvlan' || network.driver === 'overlay');
}

/** `name:alias` links as the DNS registry keeps them: alias → linked container's name. */
function linkAliases(links: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    links.map((l) => {
      const [name, alias = name] = l.split(':');
      return [alias, name.replace(/^\//, '')];
    }),
  );
}
