// Legacy links (`--link name:alias`) as dockerd 20.10 keeps them for containers off user-defined
// networks (registerLinks, links.Link, buildSandboxOptions): checked at create and stored as
// `/child:/parent/alias`, following a child on another's network to that one; at start each child
// must run on the default bridge, and gives the linking container a line in /etc/hosts (alias,
// hostname, name) and the environment variables of links.Link.ToEnv. On a user-defined network a
// link is only a name its DNS server answers (network-attachments.ts), kept as written.
import path from 'node:path';
import { EngineError, invalidParameter } from '../errors.js';
import type { HostConfig } from './config/types.js';
import type { ContainerRecord } from './container-record.js';
import { hasProcess } from './container-state.js';

const HOST_AND_LINKS = "conflicting options: host type networking can't be used with links. This would result in undefined behavior";

/** A link a starting container has: the child's address on the default bridge and what it shows. */
export interface LinkedContainer {
  /** the last part of the link's name: `db` of `/web/db` */
  alias: string;
  /** the link's name, `/web/db` */
  linkName: string;
  child: Pick<ContainerRecord, 'name' | 'config'>;
  ipv4: string;
}

export interface LinkDeps {
  find(ref: string): ContainerRecord | undefined;
  /** the container's IPv4 address on the default bridge while it runs */
  defaultBridgeAddress(id: string): string | undefined;
}

/** Whether links are dockerd's legacy kind under this network mode (the default bridge's, or none's). */
export function hasLegacyLinks(networkMode: string | undefined): boolean {
  const mode = networkMode ?? '';
  return mode === '' || mode === 'default' || mode === 'bridge' || mode === 'none' || mode === 'host' || mode.startsWith('container:');
}

/**
 * HostConfig.Links checked and written as dockerd stores them, for a container named `parentName`.
 * Off the default bridge they are none: dockerd's inspect shows only the links it registered
 * (null), and a link on a user-defined network is its EndpointsConfig's, as the CLI sends it.
 */
export function registerLinks(find: LinkDeps['find'], hostConfig: HostConfig, parentName: string): string[] | null | undefined {
  if (!hostConfig.Links?.length) return hostConfig.Links;
  if (!hasLegacyLinks(hostConfig.NetworkMode)) return null;
  return hostConfig.Links.map((link) => {
    const { name, alias } = parseLink(link);
    let child = find(name);
    if (child === undefined) throw invalidParameter(`could not get container for ${name}: No such container: ${name}`);
    // a child on another's network is linked to that one
    for (let mode = child.hostConfig.NetworkMode ?? ''; mode.startsWith('container:'); mode = child.hostConfig.NetworkMode ?? '') {
      const other = find(mode.slice('container:'.length));
      if (other === undefined) throw invalidParameter(`could not get container for ${mode.slice('container:'.length)}: No such container: ${mode.slice('container:'.length)}`);
      child = other;
    }
    if (child.hostConfig.NetworkMode === 'host') throw invalidParameter(HOST_AND_LINKS);
    return `${child.name}:${path.posix.join(parentName, alias)}`;
  });
}

/** `name[:alias]` as dockerd's opts.ParseLink reads it; the alias defaults to the name. */
function parseLink(link: string): { name: string; alias: string } {
  const [name, alias = name] = link.split(':');
  if (name === '' || alias === '') throw invalidParameter(`invalid format for links: ${link}`);
  return { name: name.replace(/^\//, ''), alias: alias.replace(/^\//, '') };
}

/** The stored links' children for a start: each must run, on the default bridge. */
export function linkedContainers(deps: LinkDeps, record: ContainerRecord): LinkedContainer[] {
  if (!hasLegacyLinks(record.hostConfig.NetworkMode)) return [];
  return (record.hostConfig.Links ?? []).map((link) => {
    const [childName, linkName] = link.split(':');
    const child = deps.find(childName);
    if (child === undefined || !hasProcess(child.state.status)) throw new EngineError('system', `Cannot link to a non running container: ${childName} AS ${linkName}`);
    const ipv4 = deps.defaultBridgeAddress(child.id);
    if (ipv4 === undefined) throw new EngineError('system', `Cannot link to ${child.name}, as it does not belong to the default network`);
    return { alias: path.posix.basename(linkName), linkName, child, ipv4 };
  });
}

/** /etc/hosts entries as ExtraHosts writes them (`names:ip`): alias, hostname, and the name unless it is the alias. */
export function linkHosts(links: readonly LinkedContainer[]): string[] {
  return links.map((l) => {
    const name = l.child.name.slice(1);
    const names = [l.alias, l.child.config.Hostname ?? '', ...(l.alias === name ? [] : [name])].filter((n) => n !== '');
    return `${names.join(' ')}:${l.ipv4}`;
  });
}

/** The environment variables of links.Link.ToEnv: ALIAS_NAME, ALIAS_PORT and ALIAS_PORT_<port>_<PROTO>…, ALIAS_ENV_<child's>. */
export function linkEnv(links: readonly LinkedContainer[]): string[] {
  return links.flatMap((l) => {
    const prefix = l.alias.toUpperCase().replace(/-/g, '_');
    const ports = Object.keys(l.child.config.ExposedPorts ?? {})
      .map((key) => {
        const [port, proto = 'tcp'] = key.split('/');
        return { port: Number(port), proto: proto.toLowerCase() };
      })
      .sort((a, b) => a.port - b.port || a.proto.localeCompare(b.proto));
    const env: string[] = [];
    if (ports.length > 0) env.push(`${prefix}_PORT=${ports[0].proto}://${l.ipv4}:${ports[0].port}`);
    for (const { port, proto } of ports) {
      const p = `${prefix}_PORT_${port}_${proto.toUpperCase()}`;
      env.push(`${p}=${proto}://${l.ipv4}:${port}`, `${p}_ADDR=${l.ipv4}`, `${p}_PORT=${port}`, `${p}_PROTO=${proto}`);
    }
    env.push(`${prefix}_NAME=${l.linkName}`);
    for (const e of l.child.config.Env ?? []) {
      const at = e.indexOf('=');
      if (at < 0) continue;
      const key = e.slice(0, at);
      if (key === 'HOME' || key === 'PATH') continue;
      env.push(`${prefix}_ENV_${key}=${e.slice(at + 1)}`);
    }
    return env;
  });
}

/**
 * `docker rm --link parent/alias`: the link's name taken out of the parent's links. A name that is
 * a container's own is refused as dockerd refuses it.
 */
export function removeLink(find: LinkDeps['find'], ref: string): { parent: ContainerRecord; links: string[] } {
  const at = ref.lastIndexOf('/');
  const parentRef = at > 0 ? ref.slice(0, at) : '';
  const parent = parentRef === '' ? undefined : find(parentRef);
  const linkName = parent === undefined ? undefined : path.posix.join(parent.name, ref.slice(at + 1));
  const links = parent?.hostConfig.Links ?? [];
  const kept = links.filter((l) => l.split(':')[1] !== linkName);
  if (parent === undefined || kept.length === links.length) {
    if (find(ref) !== undefined) throw new EngineError('system', 'Conflict, cannot remove the default link name of the container');
    throw new EngineError('notFound', `No such container: ${ref}`);
  }
  return { parent, links: kept };
}
