// The addresses of `swarm init` and `swarm join`, as dockerd resolves them
// (daemon/cluster/listen_addr.go): a listen address of host[:port] or an interface's name, port
// 2377 by default; an advertise address given (an address or an interface, the listen port by
// default), or the listen host when it is a specific one, or else the system's only address on a
// physical device (links of no kind: bridges, veths and the like do not count).
import os from 'node:os';
import { isIP } from 'node:net';
import { invalidParameter } from '../errors.js';
import { runCommand } from '../runtime/child-process.js';

export const DEFAULT_CLUSTER_PORT = 2377;

export interface ClusterAddresses {
  /** host:port */
  listenAddr: string;
  /** host:port */
  advertiseAddr: string;
  /** an IP: the data path's (the advertise host unless given) */
  dataPathAddr: string;
}

export async function resolveAddresses(listen: string, advertise: string, dataPath: string): Promise<ClusterAddresses> {
  if (listen === '') throw invalidParameter('invalid ListenAddr "": invalid empty address');
  const l = parseHostPort(listen, DEFAULT_CLUSTER_PORT, 'ListenAddr');
  const listenHost = isIP(l.host) !== 0 ? l.host : interfaceAddress(l.host, 'listen');
  let advertiseHost: string;
  let advertisePort = l.port;
  if (advertise !== '') {
    const a = parseHostPort(advertise, l.port, 'AdvertiseAddr');
    advertiseHost = isIP(a.host) !== 0 ? a.host : interfaceAddress(a.host, 'advertise');
    advertisePort = a.port;
  } else if (listenHost !== '0.0.0.0' && listenHost !== '::') {
    advertiseHost = listenHost;
  } else {
    advertiseHost = await systemAddress();
  }
  const dataPathAddr = dataPath === '' ? advertiseHost : isIP(dataPath) !== 0 ? dataPath : interfaceAddress(dataPath, 'data path');
  return { listenAddr: joinHostPort(listenHost, l.port), advertiseAddr: joinHostPort(advertiseHost, advertisePort), dataPathAddr };
}

/** A remote manager's address, 2377 unless it names a port. */
export function remoteAddress(addr: string): string {
  const { host, port } = parseHostPort(addr, DEFAULT_CLUSTER_PORT, 'RemoteAddr');
  return joinHostPort(host, port);
}

function parseHostPort(text: string, defaultPort: number, what: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/.exec(text);
  const host = m?.[1] ?? m?.[2] ?? '';
  const port = m?.[3] === undefined ? defaultPort : Number(m[3]);
  if (m === null || port < 1 || port > 65535) throw invalidParameter(`invalid ${what} "${text}"`);
  return { host: host === '' ? '0.0.0.0' : host, port };
}

function joinHostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

function interfaceAddress(name: string, what: string): string {
  const addrs = os.networkInterfaces()[name];
  if (addrs === undefined) throw invalidParameter(`failed to parse ${what} address: ${name} is neither an IP address nor a valid network interface`);
  const v4 = addrs.filter((a) => a.family === 'IPv4');
  if (v4.length === 0) throw invalidParameter(`interface ${name} has no usable IPv4 address`);
  if (v4.length > 1) throw invalidParameter(`interface ${name} has more than one IPv4 address (${v4.map((a) => a.address).join(' and ')})`);
  return v4[0]!.address;
}

async function systemAddress(): Promise<string> {
  const links = JSON.parse((await runCommand('ip', ['-j', '-d', 'link', 'show'])).stdout.toString('utf8')) as Array<{ ifname: string; flags?: string[]; link_type?: string; linkinfo?: unknown }>;
  const devices = links.filter((l) => l.link_type === 'ether' && l.linkinfo === undefined && l.flags?.includes('UP'));
  const found = devices.flatMap((d) => (os.networkInterfaces()[d.ifname] ?? []).filter((a) => a.family === 'IPv4' && !a.internal).map((a) => a.address));
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw invalidParameter("could not find the system's IP address - specify one with --advertise-addr");
  throw invalidParameter(`could not choose an IP address to advertise since this system has multiple addresses (${found.join(' and ')}) - specify one with --advertise-addr`);
}
