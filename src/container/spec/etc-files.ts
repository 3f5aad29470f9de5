// A container's /etc/hostname, /etc/hosts and /etc/resolv.conf: written into its own directory on
// the host and bind-mounted over the image's, as dockerd and libnetwork do (v20.10
// container.BuildHostnameFile, libnetwork sandbox_dns_unix.go and etchosts, resolvconf).
// - hosts: the loopback and IPv6 lines, ExtraHosts (`name:ip`), and `<ip> <hostname>` for a
//   container with an address. With NetworkMode host and no ExtraHosts, a copy of the host's /etc/hosts.
// - resolv.conf: the host's, without localhost nameservers (Google's public servers when none is
//   left); Dns, DnsSearch or DnsOptions replace its lines of the same kind (then nothing is
//   filtered). With NetworkMode host and none of those, a copy of the host's file. On a
//   user-defined network, the embedded DNS server instead (embeddedResolvConf).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OciMount } from '../../runtime/oci-spec.js';

export const HOSTNAME_FILE = 'hostname';
export const HOSTS_FILE = 'hosts';
export const RESOLV_CONF_FILE = 'resolv.conf';

const DEFAULT_HOSTS = [
  '127.0.0.1\tlocalhost',
  '::1\tlocalhost ip6-localhost ip6-loopback',
  'fe00::0\tip6-localnet',
  'ff00::0\tip6-mcastprefix',
  'ff02::1\tip6-allnodes',
  'ff02::2\tip6-allrouters',
];

const DEFAULT_NAMESERVERS = ['nameserver 8.8.8.8', 'nameserver 8.8.4.4', 'nameserver 2001:4860:4860::8888', 'nameserver 2001:4860:4860::8844'];

export interface EtcFilesInput {
  /** the container's directory on the host: the files are written there */
  containerDir: string;
  hostname: string;
  domainname?: string;
  /** 'host' copies the host's files where Docker does */
  networkMode?: string;
  /** the container's address on its network; none for loopback-only networks */
  ipAddress?: string;
  /** the embedded DNS server's address, for a container on a user-defined network */
  resolver?: string;
  extraHosts?: readonly string[] | null;
  dns?: readonly string[] | null;
  dnsSearch?: readonly string[] | null;
  dnsOptions?: readonly string[] | null;
  /** the host's files; /etc/hosts and /etc/resolv.conf by default */
  hostHostsPath?: string;
  hostResolvConfPath?: string;
}

/** The content of /etc/hosts for a container with its own network namespace. */
export function hostsContent(input: Pick<EtcFilesInput, 'hostname' | 'domainname' | 'ipAddress' | 'extraHosts'>): string {
  const lines = [...DEFAULT_HOSTS];
  for (const extra of input.extraHosts ?? []) {
    // the address may be IPv6, with colons of its own
    const at = extra.indexOf(':');
    lines.push(`${extra.slice(at + 1)}\t${extra.slice(0, at)}`);
  }
  if (input.ipAddress) {
    const names = input.domainname ? `${input.hostname}.${input.domainname} ${input.hostname}` : input.hostname;
    lines.push(`${input.ipAddress}\t${names}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The hosts content without the lines of links whose alias is given (`<ip>\t<alias> <hostname>
 * [<name>]`, linkHosts' lines: two names at least, where ExtraHosts' lines have one), as dockerd's
 * sandbox refresh after `docker rm --link` rebuilds the file without them.
 */
export function withoutLinkHosts(hosts: string, aliases: readonly string[]): string {
  return hosts
    .split('\n')
    .filter((line) => {
      const names = line.split('\t')[1]?.split(' ') ?? [];
      return !(names.length >= 2 && aliases.includes(names[0]));
    })
    .join('\n');
}

/** The content of resolv.conf from the host's (`hostResolvConf`, '' when it has none). */
export function resolvConfContent(hostResolvConf: string, opts: Pick<EtcFilesInput, 'dns' | 'dnsSearch' | 'dnsOptions'> = {}): string {
  const dns = opts.dns ?? [];
  const search = opts.dnsSearch ?? [];
  const options = opts.dnsOptions ?? [];
  if (dns.length > 0 || search.length > 0 || options.length > 0) {
    const nameservers = dns.length > 0 ? dns : nameserversOf(hostResolvConf);
    const searchList = search.length > 0 ? search : lastFields(hostResolvConf, 'search');
    const optionList = options.length > 0 ? options : lastFields(hostResolvConf, 'options');
    let out = '';
    // a search of "." means none
    if (searchList.length > 0 && searchList.join(' ').trim() !== '.') out += `search ${searchList.join(' ')}\n`;
    for (const ns of nameservers) out += `nameserver ${ns}\n`;
    if (optionList.length > 0 && optionList.join(' ').trim() !== '') out += `options ${optionList.join(' ')}\n`;
    return out;
  }
  // libnetwork's localhostNSRegexp: the line and the newlines after it go
  let cleaned = hostResolvConf.replace(/^nameserver\s+((127\.([0-9]{1,3}\.){2}[0-9]{1,3})|(::1)$)\s*\n*/gm, '');
  if (nameserversOf(cleaned).length === 0) cleaned += `\n${DEFAULT_NAMESERVERS.join('\n')}`;
  return cleaned;
}

/**
 * resolv.conf naming the embedded DNS server, as libnetwork writes it for 127.0.0.11: the host's
 * (or the container's) search domains and options kept, ndots:0 added unless an ndots is given.
 * The container's own Dns servers are where the embedded server forwards, not listed here.
 */
export function embeddedResolvConf(hostResolvConf: string, resolver: string, opts: Pick<EtcFilesInput, 'dnsSearch' | 'dnsOptions'> = {}): string {
  const search = opts.dnsSearch?.length ? [...opts.dnsSearch] : lastFields(hostResolvConf, 'search');
  const options = opts.dnsOptions?.length ? [...opts.dnsOptions] : lastFields(hostResolvConf, 'options');
  if (!options.some((o) => o.startsWith('ndots:'))) options.push('ndots:0');
  let out = '';
  if (search.length > 0 && search.join(' ').trim() !== '.') out += `search ${search.join(' ')}\n`;
  out += `nameserver ${resolver}\n`;
  out += `options ${options.join(' ')}\n`;
  return out;
}

function contentLines(conf: string): string[] {
  // comments start at # or ;
  return conf.split('\n').map((l) => l.replace(/[#;].*$/, '').trim());
}

function nameserversOf(conf: string): string[] {
  const out: string[] = [];
  for (const line of contentLines(conf)) {
    const m = /^nameserver\s*(([0-9.]+)|([0-9a-fA-F:]+(%\w+)?))\s*$/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

function lastFields(conf: string, keyword: string): string[] {
  let out: string[] = [];
  for (const line of contentLines(conf)) {
    const fields = line.split(/\s+/);
    if (fields[0] === keyword) out = fields.slice(1);
  }
  return out;
}

/** Writes the three files into containerDir and gives their mounts (rw unless the root filesystem is read-only). */
export function writeEtcFiles(input: EtcFilesInput, opts: { readonlyRootfs?: boolean } = {}): OciMount[] {
  const dir = input.containerDir;
  const hostHosts = input.hostHostsPath ?? '/etc/hosts';
  const hostResolv = input.hostResolvConfPath ?? '/etc/resolv.conf';
  const isHost = input.networkMode === 'host';
  writeFileSync(path.join(dir, HOSTNAME_FILE), `${input.hostname}\n`, { mode: 0o644 });

  const hostsPath = path.join(dir, HOSTS_FILE);
  if (isHost && !(input.extraHosts?.length)) copyOrEmpty(hostHosts, hostsPath);
  else writeFileSync(hostsPath, hostsContent(input), { mode: 0o644 });

  const resolvPath = path.join(dir, RESOLV_CONF_FILE);
  const custom = Boolean(input.dns?.length || input.dnsSearch?.length || input.dnsOptions?.length);
  if (isHost && !custom) copyOrEmpty(hostResolv, resolvPath);
  else if (input.resolver) writeFileSync(resolvPath, embeddedResolvConf(readOrEmpty(hostResolv), input.resolver, input), { mode: 0o644 });
  else writeFileSync(resolvPath, resolvConfContent(readOrEmpty(hostResolv), input), { mode: 0o644 });

  const options = ['rbind', ...(opts.readonlyRootfs ? ['ro'] : []), 'rprivate'];
  return [
    { destination: '/etc/resolv.conf', type: 'bind', source: resolvPath, options },
    { destination: '/etc/hostname', type: 'bind', source: path.join(dir, HOSTNAME_FILE), options: [...options] },
    { destination: '/etc/hosts', type: 'bind', source: hostsPath, options: [...options] },
  ];
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function copyOrEmpty(from: string, to: string): void {
  try {
    copyFileSync(from, to);
  } catch {
    writeFileSync(to, '', { mode: 0o644 });
  }
}
