// A container's endpoint on a network, as libnetwork makes one (network.createEndpoint,
// endpoint.assignAddress, the drivers' CreateEndpoint): an address of each family the network has
// pools for (the one asked for, else the lowest free), the gateway, a MAC derived from the IPv4
// address as dockerd derives it, and the container's next interface name.
import { randomBytes } from 'node:crypto';
import { EngineError, invalidParameter } from '../errors.js';
import type { EndpointRecord } from './endpoint-store.js';
import { IpNet, parseIp, type IpAddress, type IpFamily } from './ip-net.js';
import { macFromIpv4, poolOf, PoolExhaustedError, requestAddress } from './ipam.js';
import { allocatedPools, isPredefined, type IpamPoolRecord, type NetworkRecord } from './network-record.js';

export interface EndpointContainer {
  id: string;
  name: string;
  /** the container's MacAddress, for the network it was created on */
  macAddress?: string;
}

export interface EndpointSettings {
  /** EndpointSettings.IPAMConfig's addresses */
  ipv4?: string;
  ipv6?: string;
  aliases: string[];
  links: string[];
}

export interface EndpointContext {
  /** the addresses taken in a subnet, by every network on it */
  usedIn(subnet: IpNet): Set<bigint>;
  /** the container's other endpoints */
  endpointsOf(containerId: string): EndpointRecord[];
}

/** The aux address keys that name a bridge's containers' default gateway, when it is not the bridge (libnetwork's bridge driver). */
const DEFAULT_GATEWAY_AUX: Record<IpFamily, string> = { 4: 'DefaultGatewayIPv4', 6: 'DefaultGatewayIPv6' };

export function buildEndpoint(network: NetworkRecord, container: EndpointContainer, settings: EndpointSettings, ctx: EndpointContext): EndpointRecord {
  checkStaticAddresses(network, settings);
  const others = ctx.endpointsOf(container.id);
  if (others.some((e) => e.networkId === network.id)) {
    throw new EngineError('forbidden', `endpoint with name ${container.name} already exists in network ${network.name}`);
  }
  if (network.driver === 'ipvlan' && container.macAddress) {
    throw new EngineError('system', 'ipvlan interfaces do not support custom mac address assignment');
  }
  const addressed = network.driver !== 'host' && network.driver !== 'null';
  const v4 = addressed ? assign(network, 4, settings.ipv4, ctx) : undefined;
  const v6 = addressed && network.enableIPv6 ? assign(network, 6, settings.ipv6, ctx) : undefined;
  const ipamConfig = settings.ipv4 || settings.ipv6 ? { ...(settings.ipv4 && { ipv4Address: settings.ipv4 }), ...(settings.ipv6 && { ipv6Address: settings.ipv6 }) } : null;
  return {
    id: randomBytes(32).toString('hex'),
    networkId: network.id,
    containerId: container.id,
    containerName: container.name,
    ifName: addressed ? nextInterface(others) : '',
    macAddress: macAddressFor(network, container, v4?.ip),
    ...(v4 && { ipv4Address: v4.subnet.withPrefix(v4.ip) }),
    ...(v4?.gateway !== undefined && { gateway: v4.gateway }),
    ...(v6 && { ipv6Address: v6.subnet.withPrefix(v6.ip) }),
    ...(v6?.gateway !== undefined && { ipv6Gateway: v6.gateway }),
    aliases: settings.aliases,
    links: settings.links,
    ipamConfig,
  };
}

/** dockerd's validateNetworkingConfig: an address asked for needs a custom network with a subnet of its family written by the user. */
function checkStaticAddresses(network: NetworkRecord, settings: EndpointSettings): void {
  if (!settings.ipv4 && !settings.ipv6) return;
  if (isPredefined(network)) throw invalidParameter('user specified IP address is supported on user defined networks only');
  const written = (family: IpFamily) => network.ipam.config.some((p) => p.requested !== undefined && IpNet.parse(p.subnet)?.family === family);
  if ((settings.ipv4 && !written(4)) || (settings.ipv6 && !written(6))) {
    throw invalidParameter('user specified IP address is supported only when connecting to networks with user configured subnets');
  }
}

interface Assigned {
  ip: IpAddress;
  subnet: IpNet;
  gateway?: string;
}

/** endpoint.assignAddressVersion: the address asked for in the pool that holds it, else the first pool with one free. */
function assign(network: NetworkRecord, family: IpFamily, asked: string | undefined, ctx: EndpointContext): Assigned | undefined {
  const pools = allocatedPools(network).filter((p) => p.subnet.family === family);
  if (pools.length === 0) return undefined;
  const preferred = asked ? parseIp(asked) : undefined;
  for (const { pool, subnet } of pools) {
    if (preferred !== undefined && !subnet.contains(preferred)) continue;
    const { requested } = pool;
    const range = requested?.ipRange ? IpNet.parse(requested.ipRange) : undefined;
    try {
      const ip = requestAddress(poolOf(subnet, range), ctx.usedIn(subnet), preferred);
      return { ip, subnet, gateway: gatewayFor(network, family, pool) };
    } catch (err) {
      // a full pool sends the search on to the next; anything about an address asked for is final
      if (preferred !== undefined || !(err instanceof PoolExhaustedError)) throw err;
    }
  }
  if (preferred !== undefined) throw new EngineError('system', `Invalid address ${asked}: It does not belong to any of this network's subnets`);
  throw new EngineError('system', `no available IPv${family} addresses on this network's address pools: ${network.name} (${network.id})`);
}

/**
 * The gateway the drivers give the container (their Join): a bridge's always (internal ones too),
 * or the one its aux addresses name; macvlan and ipvlan none on an internal network, nor ipvlan in
 * l3 mode, whose default route is the interface itself.
 */
function gatewayFor(network: NetworkRecord, family: IpFamily, pool: IpamPoolRecord): string | undefined {
  if (network.driver === 'bridge') return pool.requested?.auxAddresses?.[DEFAULT_GATEWAY_AUX[family]] ?? pool.gateway;
  if (network.internal || (network.driver === 'ipvlan' && network.options.ipvlan_mode === 'l3')) return undefined;
  return pool.gateway;
}

/** The container's MAC for its network, as the driver elects it; ipvlan's interfaces use their parent's. */
function macAddressFor(network: NetworkRecord, container: EndpointContainer, ipv4: IpAddress | undefined): string {
  if (network.driver !== 'bridge' && network.driver !== 'macvlan' && network.driver !== 'overlay') return '';
  if (container.macAddress) return container.macAddress;
  return ipv4 === undefined ? '' : macFromIpv4(ipv4);
}

/** The lowest ethN the container's other endpoints leave. */
function nextInterface(others: readonly EndpointRecord[]): string {
  const used = new Set(others.map((e) => e.ifName));
  let n = 0;
  while (used.has(`eth${n}`)) n++;
  return `eth${n}`;
}
