// What the networking suites look at, from the places a user would: commands in containers (busybox
// ping, wget, nslookup), the host's side played by berthd's own network namespace (an address of
// its own there, wget and nc run in it), a DNS query sent from inside a container's namespace, and
// the kernel state berthd leaves in its namespace (veths, namespace files, portmap's chains).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import dnsPacket, { type DecodedPacket, type RecordType } from 'dns-packet';
import type { Berthd } from './berthd.js';
import type { CliResult } from './docker-cli.js';
import { execIn } from './netns.js';
import { until } from './until.js';

/**
 * Gives berthd's namespace an address of its own that plays the host's (`10.123.0.1/24`), on one
 * end of a veth pair kept inside it: the kernels the tests run on may lack dummy links.
 */
export function addHostAddress(netns: string, cidr: string, name = 'hostif0'): void {
  execIn(netns, 'ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', `${name}p`]);
  execIn(netns, 'ip', ['addr', 'add', cidr, 'dev', name]);
  for (const link of [name, `${name}p`]) execIn(netns, 'ip', ['link', 'set', link, 'up']);
}

/** A veth pair inside the namespace, both ends up: `name` can be a macvlan or ipvlan parent. */
export function addParentLink(netns: string, name: string): void {
  execIn(netns, 'ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', `${name}p`]);
  for (const link of [name, `${name}p`]) execIn(netns, 'ip', ['link', 'set', link, 'up']);
}

/** busybox httpd in the foreground on port 80, serving `text` at / */
export function httpd(text: string): string[] {
  return ['sh', '-c', `mkdir -p /www && echo ${text} > /www/index.html && exec httpd -f -p 80 -h /www`];
}

/** `sh -c script` in a running container. */
export function sh(d: Berthd, container: string, script: string): Promise<CliResult> {
  return d.docker(['exec', container, 'sh', '-c', script]);
}

/** `docker run -d …` that must succeed; the container's ID. */
export async function runDetached(d: Berthd, args: string[]): Promise<string> {
  const r = await d.docker(['run', '-d', ...args]);
  if (r.code !== 0) throw new Error(`docker run -d ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Waits until `url` answers `text` from inside the container (a server still starting is no failure). */
export async function untilServed(d: Berthd, from: string, url: string, text: string): Promise<void> {
  await until(`${url} to answer from ${from}`, async () => (await sh(d, from, `wget -qO- ${url}`)).stdout.trim(), (v) => v === text);
}

/** busybox wget run in berthd's namespace (the host's side): the body, or undefined when it fails. */
export function wgetFromHost(netns: string, url: string): string | undefined {
  try {
    return execIn(netns, 'busybox', ['timeout', '5', 'busybox', 'wget', '-qO-', url]).trim();
  } catch {
    return undefined;
  }
}

/** The container's address on a network, from inspect. */
export async function addressOn(d: Berthd, container: string, network: string): Promise<string> {
  const r = await d.docker(['inspect', '-f', `{{with index .NetworkSettings.Networks "${network}"}}{{.IPAddress}}{{end}}`, container]);
  const ip = r.stdout.trim();
  if (r.code !== 0 || ip === '') throw new Error(`${container} has no address on ${network}: ${r.stderr}`);
  return ip;
}

interface Link {
  ifname: string;
  master?: string;
  link_type: string;
}

/** The links of a namespace (ip -j link). */
export function links(netns: string): Link[] {
  return JSON.parse(execIn(netns, 'ip', ['-j', 'link', 'show'])) as Link[];
}

/** The veths plugged into a bridge in berthd's namespace. */
export function bridgePorts(netns: string, bridge: string): string[] {
  return links(netns)
    .filter((l) => l.master === bridge)
    .map((l) => l.ifname)
    .sort();
}

/** The namespace files under berthd's exec root (`<exec-root>/netns/<container ID>`). */
export function netnsFiles(execRoot: string): string[] {
  try {
    return readdirSync(path.join(execRoot, 'netns')).sort();
  } catch {
    return [];
  }
}

/** The nat table's lines that name the container: portmap's DNAT jump carries its ID in a comment. */
export function natRulesOf(netns: string, containerId: string): string[] {
  return execIn(netns, 'iptables-save', ['-t', 'nat']).split('\n').filter((l) => l.includes(containerId));
}

/** The portmap chains (CNI-DN-…) that exist in the nat table. */
export function dnatChains(netns: string): string[] {
  return execIn(netns, 'iptables-save', ['-t', 'nat'])
    .split('\n')
    .filter((l) => l.startsWith(':CNI-DN-'))
    .map((l) => l.split(' ')[0].slice(1))
    .sort();
}

/** The namespace file of a running container, for commands run in its network namespace from the host. */
export function containerNetns(execRoot: string, containerId: string): string {
  return path.join(execRoot, 'netns', containerId);
}

/** Node's script for a DNS query over UDP: argv the server and the query's hex; prints the reply's hex. */
const QUERY = `const s = require('dgram').createSocket('udp4');
const t = setTimeout(() => { console.error('no reply'); process.exit(1); }, 5000);
s.on('message', (m) => { clearTimeout(t); process.stdout.write(m.toString('hex')); s.close(); });
s.send(Buffer.from(process.argv[2], 'hex'), 53, process.argv[1]);`;

export type DnsReply = DecodedPacket & { rcode: string };

/** Asks `server` for `name` from inside the namespace (a container's): the decoded reply. */
export function dnsQuery(netns: string, server: string, name: string, type: RecordType = 'A'): DnsReply {
  const query = dnsPacket.encode({ type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }] });
  const hex = execIn(netns, process.execPath, ['-e', QUERY, server, query.toString('hex')]);
  return dnsPacket.decode(Buffer.from(hex, 'hex')) as DnsReply;
}
