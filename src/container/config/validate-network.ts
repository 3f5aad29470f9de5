// Network settings checked at create as dockerd 20.10 does: the network mode against the options it
// excludes (runconfig validateNetMode), port bindings, extra hosts and the NetworkingConfig. Whether
// a named network or a `container:` target exists is the service's question, asked at start.
import { isIP, isIPv4 } from 'node:net';
import { invalidParameter } from '../../errors.js';
import type { ContainerConfig, HostConfig, NetworkingConfig } from './types.js';

export function validateNetworkMode(c: ContainerConfig, hc: HostConfig): void {
  const mode = hc.NetworkMode ?? '';
  const parts = mode.split(':');
  if (parts[0] === 'container' && (parts.length < 2 || parts[1] === '')) {
    throw invalidParameter('Invalid network mode: invalid container format container:<name|id>');
  }
  const container = parts[0] === 'container' && parts.length > 1;
  const host = mode === 'host';
  if (container && c.Hostname) throw invalidParameter('conflicting options: hostname and the network mode');
  if (container && hc.Links?.length) {
    throw invalidParameter("conflicting options: container type network can't be used with links. This would result in undefined behavior");
  }
  if (container && hc.Dns?.length) throw invalidParameter('conflicting options: dns and the network mode');
  if (container && hc.ExtraHosts?.length) throw invalidParameter('conflicting options: custom host-to-IP mapping and the network mode');
  if ((container || host) && c.MacAddress) throw invalidParameter('conflicting options: mac-address and the network mode');
  if (container && (Object.keys(hc.PortBindings ?? {}).length || hc.PublishAllPorts)) {
    throw invalidParameter('conflicting options: port publishing and the container type network mode');
  }
  if (container && Object.keys(c.ExposedPorts ?? {}).length) {
    throw invalidParameter('conflicting options: port exposing and the container type network mode');
  }
  if (hc.UTSMode === 'host' && c.Hostname) throw invalidParameter('conflicting options: hostname and the UTS mode');
  if (host && hc.Links?.length) {
    throw invalidParameter("conflicting options: host type networking can't be used with links. This would result in undefined behavior");
  }
}

/** PortBindings keys and host ports, as dockerd's validatePortBindings. */
export function validatePortBindings(bindings: HostConfig['PortBindings']): void {
  for (const [key, list] of Object.entries(bindings ?? {})) {
    const port = key.split('/')[0];
    if (port !== '' && !isPortNumber(port)) throw invalidParameter(`invalid port specification: ${JSON.stringify(port)}`);
    for (const b of list ?? []) {
      const hostPort = (b.HostPort ?? '').split('/')[0];
      if (hostPort !== '' && !isPortRange(hostPort)) throw invalidParameter(`invalid port specification: ${JSON.stringify(b.HostPort)}`);
    }
  }
}

function isPortNumber(s: string): boolean {
  return /^\d+$/.test(s) && Number(s) <= 0xffff;
}

function isPortRange(s: string): boolean {
  const [start, end, ...rest] = s.split('-');
  if (rest.length > 0 || !isPortNumber(start)) return false;
  return end === undefined || (isPortNumber(end) && Number(end) >= Number(start));
}

/** ExtraHosts entries `host:ip` (or `host:host-gateway`), as dockerd's ValidateExtraHost. */
export function validateExtraHosts(hosts: string[] | null | undefined): void {
  for (const h of hosts ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw invalidParameter(`bad format for add-host: ${JSON.stringify(h)}`);
    const ip = h.slice(i + 1);
    if (ip !== 'host-gateway' && !isIP(ip.trim())) throw invalidParameter(`invalid IP address in add-host: ${JSON.stringify(ip)}`);
  }
}

/** At most one endpoint, each with settings and well-formed static addresses (verifyNetworkingConfig). */
export function validateNetworkingConfig(nc: NetworkingConfig): void {
  const endpoints = Object.entries(nc.EndpointsConfig ?? {});
  if (endpoints.length > 1) {
    throw invalidParameter(`Container cannot be connected to network endpoints: ${endpoints.map(([name]) => name).join(', ')}`);
  }
  for (const [name, ep] of endpoints) {
    if (!ep) throw invalidParameter(`no EndpointSettings for ${name}`);
    const ipam = ep.IPAMConfig as { IPv4Address?: string; IPv6Address?: string } | null | undefined;
    if (ipam?.IPv4Address && !isIPv4(ipam.IPv4Address)) throw invalidParameter(`invalid IPv4 address: ${ipam.IPv4Address}`);
    if (ipam?.IPv6Address && isIP(ipam.IPv6Address) !== 6) throw invalidParameter(`invalid IPv6 address: ${ipam.IPv6Address}`);
  }
}
