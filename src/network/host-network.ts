// What the host's own networking holds, read (never changed) when a network is made: the networks
// its interfaces reach directly and its nameservers, which a default pool must avoid (libnetwork's
// FindAvailableNetwork), and its interface names, which macvlan and ipvlan parents must be.
// Injected, so tests give their own.
import { readFileSync } from 'node:fs';
import { IpNet, parseIp } from './ip-net.js';

export interface HostNetwork {
  /** Prefixes routed straight to an interface, and each IPv4 nameserver as a /32. */
  networks(): IpNet[];
  /** The names of the host's network interfaces. */
  links(): string[];
}

export const host: HostNetwork = {
  networks: () => [...directRoutes(readOrEmpty('/proc/net/route')), ...nameservers(readOrEmpty('/etc/resolv.conf'))],
  // /proc/net is the reading process's network namespace; /sys/class/net is the namespace of
  // whoever mounted /sys, which differs for a berthd entered into a namespace with nsenter
  links: () => interfaceNames(readOrEmpty('/proc/net/dev')),
};

/** The interface names of /proc/net/dev (two header lines, then `name: counters`). */
export function interfaceNames(procNetDev: string): string[] {
  return procNetDev
    .split('\n')
    .slice(2)
    .map((line) => line.split(':')[0].trim())
    .filter((name) => name !== '');
}

/**
 * The routes of /proc/net/route without a gateway, but for the default one: the link-scope routes
 * libnetwork's CheckRouteOverlaps looks at. Addresses and masks are little-endian hex.
 */
export function directRoutes(procNetRoute: string): IpNet[] {
  const out: IpNet[] = [];
  for (const line of procNetRoute.split('\n').slice(1)) {
    const [, destination, gateway, , , , , mask] = line.trim().split(/\s+/);
    if (mask === undefined || !/^[0-9A-Fa-f]{8}$/.test(destination) || !/^[0-9A-Fa-f]{8}$/.test(mask)) continue;
    const maskValue = littleEndian(mask);
    if (Number.parseInt(gateway, 16) !== 0 || maskValue === 0n) continue;
    const prefixLength = maskValue.toString(2).replace(/0+$/, '').length;
    out.push(new IpNet({ family: 4, value: littleEndian(destination) }, prefixLength));
  }
  return out;
}

/** The IPv4 nameservers of a resolv.conf, each as a /32. */
export function nameservers(resolvConf: string): IpNet[] {
  const out: IpNet[] = [];
  for (const line of resolvConf.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    const ip = m ? parseIp(m[1]) : undefined;
    if (ip?.family === 4) out.push(new IpNet(ip, 32));
  }
  return out;
}

function littleEndian(hex: string): bigint {
  return BigInt(`0x${hex.match(/../g)?.reverse().join('')}`);
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
