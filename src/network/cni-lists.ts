// The CNI configuration list that plumbs one endpoint: the network's driver plugin (bridge,
// macvlan, ipvlan) with the `static` IPAM plugin given the address berth allocated (berth is the
// IPAM: its endpoint records hold the allocations), and portmap when the endpoint publishes ports.
// The bridge plugin masquerades nothing: berth keeps one masquerading rule per network
// (network-firewall.ts), so an attachment costs no iptables work unless it publishes ports.
// Loopback is brought up with the namespace (netns.ts), not by the loopback plugin, whose DEL would
// bring it down under the container's other networks.
import type { CniNetworkConfigList, CniPluginConfig } from '../runtime/cni-config.js';
import type { EndpointRecord } from './endpoint-store.js';
import type { NetworkRecord } from './network-record.js';

const DEFAULT_MTU = 1500;
/** macvlan's and ipvlan's modes when the network's options name none, as dockerd's defaults */
const MACVLAN_MODE = 'bridge';
const IPVLAN_MODE = 'l2';

/** One published port, as portmap's `portMappings` capability takes it. */
export interface PortMapping {
  hostPort: number;
  containerPort: number;
  protocol: 'tcp' | 'udp' | 'sctp';
  hostIP?: string;
}

/**
 * `defaultRoute`: this endpoint gives the container its default route (its first endpoint on a
 * network that is not internal, as dockerd picks its gateway endpoint); the others only reach their subnets.
 */
export function endpointConfList(network: NetworkRecord, endpoint: EndpointRecord, opts: { ports: readonly PortMapping[]; defaultRoute: boolean }): CniNetworkConfigList {
  const plugins: CniPluginConfig[] = [driverPlugin(network, endpoint, opts.defaultRoute)];
  const ports = opts.ports;
  if (ports.length > 0) plugins.push({ type: 'portmap', capabilities: { portMappings: true }, snat: true });
  // portmap 1.1.1's CHECK fails for an IPv4-only container, looking for an IPv6 chain it never made
  return { cniVersion: '1.0.0', name: cniNetworkName(network), disableCheck: true, plugins };
}

/** libcni's rule for network names: berth's names are Docker's, which it allows; the ID never fails it. */
function cniNetworkName(network: NetworkRecord): string {
  return /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(network.name) ? network.name : network.id;
}

function driverPlugin(network: NetworkRecord, endpoint: EndpointRecord, defaultRoute: boolean): CniPluginConfig {
  const ipam = staticIpam(endpoint, defaultRoute);
  const mtu = Number(network.options['com.docker.network.driver.mtu'] ?? DEFAULT_MTU);
  switch (network.driver) {
    case 'bridge':
      return {
        type: 'bridge',
        bridge: network.bridgeName,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        mtu,
        ...(endpoint.macAddress ? { capabilities: { mac: true }, runtimeConfig: { mac: endpoint.macAddress } } : {}),
        ipam,
      };
    case 'macvlan':
      return { type: 'macvlan', master: network.parent, mode: network.options.macvlan_mode || MACVLAN_MODE, mtu, ipam };
    case 'ipvlan':
      return { type: 'ipvlan', master: network.parent, mode: network.options.ipvlan_mode || IPVLAN_MODE, mtu, ipam };
    default:
      throw new Error(`network ${network.name}: the ${network.driver} driver has no CNI plugin`);
  }
}

/** The `static` IPAM plugin given the endpoint's addresses, and the default routes when it gives them. */
function staticIpam(endpoint: EndpointRecord, defaultRoute: boolean): CniPluginConfig {
  const addresses = [
    ...(endpoint.ipv4Address ? [{ address: endpoint.ipv4Address, ...(endpoint.gateway ? { gateway: endpoint.gateway } : {}) }] : []),
    ...(endpoint.ipv6Address ? [{ address: endpoint.ipv6Address, ...(endpoint.ipv6Gateway ? { gateway: endpoint.ipv6Gateway } : {}) }] : []),
  ];
  const routes = defaultRoute ? [...(endpoint.gateway ? [{ dst: '0.0.0.0/0' }] : []), ...(endpoint.ipv6Gateway ? [{ dst: '::/0' }] : [])] : [];
  return { type: 'static', addresses, routes };
}
