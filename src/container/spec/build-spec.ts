// A container's OCI spec (runc's config.json), composed as dockerd 20.10's createSpec composes it
// (daemon/oci_linux.go): user, capabilities, devices, namespaces, resources, rlimits, sysctls,
// seccomp, mounts (the container's mount points, HostConfig.Tmpfs, /etc files, init) and the
// process (args, env, cwd, terminal). Called at every start, with the root filesystem mounted.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../errors.js';
import { replaceOrAppendEnv } from '../../lib/env-values.js';
import { ociSpec, type OciMount, type OciSpec } from '../../runtime/oci-spec.js';
import { INIT_BINARY } from '../../runtime/tool-path.js';
import type { NetworkAttachment } from '../../network/network-attachments.js';
import type { ContainerConfig, HostConfig } from '../config/types.js';
import { linkEnv, linkHosts, type LinkedContainer } from '../container-links.js';
import type { BareEnv } from '../container-record.js';
import { containerCapabilities } from './capabilities.js';
import { containerDevices } from './devices.js';
import { writeEtcFiles, HOSTNAME_FILE, HOSTS_FILE, RESOLV_CONF_FILE } from './etc-files.js';
import { resolveInRoot } from './in-root-path.js';
import { containerNamespaces, hasPrivatePidNamespace, type ContainerLookup } from './namespaces.js';
import { cleanPath, type MountPoint } from './resolve-mounts.js';
import { ociResources, ociRlimits } from './resources.js';
import { containerSeccomp, parseSecurityOptions } from './seccomp.js';
import { mountShm } from './shm.js';
import { mergeTmpfsOptions } from './tmpfs-options.js';
import { resolveUser } from './user.js';

/** Docker's PATH when the image and Config set none (system.DefaultPathEnv). */
export const DEFAULT_PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Where Init puts its init in the container (dockerd's inContainerInitPath). */
export const IN_CONTAINER_INIT_PATH = '/sbin/docker-init';
/** The cgroup parent of containers without HostConfig.CgroupParent (Docker's is /docker). */
export const DEFAULT_CGROUP_PARENT = '/berth';

export interface BuildSpecInput {
  /** the container's full ID */
  id: string;
  /** Config and HostConfig after normalize-create (dockerd's defaults filled) */
  config: ContainerConfig;
  hostConfig: HostConfig;
  /** what Config.Env entries without "=" do: unset (the default) or set empty */
  bareEnv?: BareEnv;
  /** the container's root filesystem, mounted (user lookup, working directory) */
  rootfsPath: string;
  /** The container's own directory on the host: buildContainerSpec writes hostname, hosts and resolv.conf there. */
  containerDir: string;
  /**
   * Where the container's /dev/shm tmpfs goes on the host when its IpcMode is shareable:
   * buildContainerSpec mounts it (the runner unmounts it with unmountShm when the run ends).
   */
  shmDir: string;
  /** from resolveMountPoints, as recorded at create */
  mountPoints: readonly MountPoint[];
  /** a swarm task's secrets and configs: host files bound read-only (dockerd's SecretMounts and ConfigMounts) */
  taskFiles?: ReadonlyArray<{ source: string; destination: string }>;
  /** other containers, for container:<id> network, IPC and PID modes */
  lookup: ContainerLookup;
  /** the run's networking (its namespace, address and resolver); none: a namespace of loopback alone, or the host's or another's */
  network?: NetworkAttachment;
  /** legacy links' children, running (container-links.ts) */
  links?: readonly LinkedContainer[];
  /** the host binary bind-mounted as /sbin/docker-init for HostConfig.Init; catatonit by default */
  initBinary?: string;
  /** the parent of cgroupsPath without HostConfig.CgroupParent; /berth by default */
  cgroupParent?: string;
  /** the host's files copied or filtered for the container; /etc/hosts and /etc/resolv.conf by default */
  hostHostsPath?: string;
  hostResolvConfPath?: string;
}

/** The container's cgroup, relative to the hierarchies' roots (runc's cgroupsPath, for cgroupfs). */
export function containerCgroupsPath(id: string, hc: HostConfig, defaultParent = DEFAULT_CGROUP_PARENT): string {
  return path.posix.join(hc.CgroupParent || defaultParent, id);
}

/** The container's config.json. */
export async function buildContainerSpec(input: BuildSpecInput): Promise<OciSpec> {
  const { config, hostConfig: hc } = input;
  const security = parseSecurityOptions(hc.SecurityOpt);
  const privileged = hc.Privileged ?? false;
  const user = resolveUser(input.rootfsPath, config.User, hc.GroupAdd);
  const capabilities = containerCapabilities({ capAdd: hc.CapAdd, capDrop: hc.CapDrop, capabilities: hc.Capabilities, privileged });
  const devices = containerDevices({ devices: hc.Devices, deviceCgroupRules: hc.DeviceCgroupRules, privileged });
  const shmDir = input.shmDir;
  const ns = containerNamespaces(input.id, hc, input.lookup, shmDir, input.network?.netnsPath);
  if (typeof ns.shm === 'object' && 'hostPath' in ns.shm && ns.shm.hostPath === shmDir) await mountShm(shmDir, hc.ShmSize ?? 0);

  const hostname = joinedHostname(input) ?? config.Hostname ?? '';
  const readonlyRootfs = hc.ReadonlyRootfs ?? false;
  const userDestinations = new Set([...input.mountPoints.map((m) => m.Destination), ...Object.keys(hc.Tmpfs ?? {})]);
  const etcMounts = etcFileMounts(input, readonlyRootfs).filter((m) => !userDestinations.has(m.destination));

  let rootfsPropagation: string | undefined;
  const mounts: OciMount[] = [];
  for (const m of input.mountPoints) {
    if (m.Type === 'tmpfs') {
      mounts.push(tmpfsMount(m.Destination, m.tmpfsOptions ?? ''));
      continue;
    }
    if (m.createSource && !existsSync(m.Source)) mkdirSync(m.Source, { recursive: true, mode: 0o755 });
    const options = [m.nonRecursive ? 'bind' : 'rbind'];
    if (!m.RW) options.push('ro');
    if (m.Propagation) options.push(m.Propagation);
    if (m.Type === 'bind' && /shared/.test(m.Propagation)) rootfsPropagation = 'shared';
    else if (m.Type === 'bind' && /slave/.test(m.Propagation) && rootfsPropagation !== 'shared') rootfsPropagation = 'rslave';
    mounts.push({ destination: m.Destination, type: 'bind', source: m.Source, options });
  }
  for (const [destination, data] of Object.entries(hc.Tmpfs ?? {})) mounts.push(tmpfsMount(destination, data));
  for (const f of input.taskFiles ?? []) mounts.push({ destination: f.destination, type: 'bind', source: f.source, options: ['rbind', 'ro', 'rprivate'] });
  mounts.push(...etcMounts);
  // parents before what is mounted inside them (dockerd sorts by the number of path parts)
  mounts.sort((a, b) => depth(a.destination) - depth(b.destination));

  let args = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
  if (hc.Init && hasPrivatePidNamespace(hc)) {
    args = [IN_CONTAINER_INIT_PATH, '--', ...args];
    mounts.unshift({ destination: IN_CONTAINER_INIT_PATH, type: 'bind', source: input.initBinary ?? INIT_BINARY, options: ['bind', 'ro'] });
  }

  const sysctl: Record<string, string> = {};
  if (config.Domainname && ns.namespaces.uts !== 'host') sysctl['kernel.domainname'] = config.Domainname;
  // a network namespace of the container's own gets dockerd's two safe defaults
  const network = ns.namespaces.network;
  if (network === 'private' || (typeof network === 'object' && network.path === input.network?.netnsPath)) {
    if (existsSync('/proc/sys/net/ipv4/ping_group_range')) sysctl['net.ipv4.ping_group_range'] = '0 2147483647';
    if (existsSync('/proc/sys/net/ipv4/ip_unprivileged_port_start')) sysctl['net.ipv4.ip_unprivileged_port_start'] = '0';
  }
  Object.assign(sysctl, hc.Sysctls ?? {});

  const cwd = workingDirectory(input.rootfsPath, config.WorkingDir);
  const tty = config.Tty ?? false;
  const [height = 0, width = 0] = hc.ConsoleSize ?? [];
  const seccomp = containerSeccomp({ privileged, seccompProfile: security.seccompProfile, capabilities });

  return ociSpec({
    args,
    env: daemonEnvironment(config, input.bareEnv, linkEnv(input.links ?? [])),
    cwd,
    user: { uid: user.uid, gid: user.gid, additionalGids: user.additionalGids },
    terminal: tty,
    ...(tty && height > 0 && width > 0 ? { consoleSize: { height, width } } : {}),
    hostname,
    rootfsPath: input.rootfsPath,
    readonlyRootfs,
    cgroupsPath: containerCgroupsPath(input.id, hc, input.cgroupParent),
    namespaces: ns.namespaces,
    shm: ns.shm,
    privileged,
    mounts,
    capabilities,
    noNewPrivileges: security.noNewPrivileges,
    rlimits: ociRlimits(hc.Ulimits),
    ...(hc.MaskedPaths ? { maskedPaths: hc.MaskedPaths } : {}),
    ...(hc.ReadonlyPaths ? { readonlyPaths: hc.ReadonlyPaths } : {}),
    devices: devices.devices,
    deviceCgroupRules: devices.rules,
    oomScoreAdj: hc.OomScoreAdj ?? 0,
    sysctl,
    resources: { ...ociResources(hc) },
    ...(seccomp ? { seccomp: { ...seccomp } } : {}),
    ...(rootfsPropagation ? { rootfsPropagation } : {}),
  });
}

/** A container on another's network takes that one's hostname, as dockerd's initializeNetworking sets it: the one in its /etc/hostname. */
function joinedHostname(input: BuildSpecInput): string | undefined {
  const net = input.hostConfig.NetworkMode ?? '';
  if (!net.startsWith('container:')) return undefined;
  const dir = input.lookup(net.slice('container:'.length))?.dir;
  if (dir === undefined) return undefined;
  try {
    return readFileSync(path.join(dir, HOSTNAME_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The /etc files: a container on another's network shares that one's (dockerd's initializeNetworking). */
function etcFileMounts(input: BuildSpecInput, readonlyRootfs: boolean): OciMount[] {
  const { config, hostConfig: hc } = input;
  const net = hc.NetworkMode ?? '';
  // without networking dockerd makes no sandbox, so no files of it: the init layer's empty ones stay
  if (config.NetworkDisabled) return [];
  if (net.startsWith('container:')) {
    const other = input.lookup(net.slice('container:'.length));
    if (other?.dir) {
      const options = ['rbind', ...(readonlyRootfs ? ['ro'] : []), 'rprivate'];
      return [
        { destination: '/etc/resolv.conf', type: 'bind', source: path.join(other.dir, RESOLV_CONF_FILE), options },
        { destination: '/etc/hostname', type: 'bind', source: path.join(other.dir, HOSTNAME_FILE), options: [...options] },
        { destination: '/etc/hosts', type: 'bind', source: path.join(other.dir, HOSTS_FILE), options: [...options] },
      ];
    }
  }
  return writeEtcFiles(
    {
      containerDir: input.containerDir,
      hostname: config.Hostname ?? '',
      domainname: config.Domainname,
      networkMode: net,
      ipAddress: input.network?.address,
      resolver: input.network?.resolver,
      extraHosts: [...(hc.ExtraHosts ?? []).map((h) => withHostGateway(h, input.network?.hostGateway)), ...linkHosts(input.links ?? [])],
      dns: hc.Dns?.length ? hc.Dns : input.network?.dns,
      dnsSearch: hc.DnsSearch,
      dnsOptions: hc.DnsOptions,
      hostHostsPath: input.hostHostsPath,
      hostResolvConfPath: input.hostResolvConfPath,
    },
    { readonlyRootfs },
  );
}

/** ExtraHosts' `name:host-gateway` names the default bridge's gateway, as dockerd's host-gateway-ip defaults to. */
function withHostGateway(extraHost: string, gateway: string | undefined): string {
  const at = extraHost.indexOf(':');
  return extraHost.slice(at + 1) === 'host-gateway' && gateway !== undefined ? `${extraHost.slice(0, at)}:${gateway}` : extraHost;
}

function tmpfsMount(destination: string, data: string): OciMount {
  const options = mergeTmpfsOptions(['noexec', 'nosuid', 'nodev', 'rprivate', ...(data ? data.split(',') : [])]);
  return { destination, type: 'tmpfs', source: 'tmpfs', options };
}

function depth(destination: string): number {
  return cleanPath(destination).split('/').length;
}

/** WorkingDir (or /), made in the root filesystem when missing, owned by root with 0755 as in Docker 20.10 (at create, and again at start). */
export function workingDirectory(rootfs: string, workingDir: string | undefined): string {
  if (!workingDir) return '/';
  const cwd = cleanPath(workingDir);
  const onHost = resolveInRoot(rootfs, cwd);
  try {
    mkdirSync(onHost, { recursive: true, mode: 0o755 });
  } catch (err) {
    if (existsSync(onHost) && !statSync(onHost).isDirectory()) throw new EngineError('system', `Cannot mkdir: ${cwd} is not a directory`);
    throw err;
  }
  return cwd;
}

/**
 * PATH, HOSTNAME, TERM (with a terminal) and the links' variables under Config.Env, as dockerd's CreateDaemonEnvironment;
 * an entry without "=" unsets its variable, or sets it empty for a container made before API 1.40.
 */
export function daemonEnvironment(config: ContainerConfig, bareEnv: BareEnv = 'unset', linked: readonly string[] = []): string[] {
  const env = [DEFAULT_PATH_ENV, `HOSTNAME=${config.Hostname ?? ''}`];
  if (config.Tty) env.push('TERM=xterm');
  env.push(...linked);
  const given = config.Env ?? [];
  return replaceOrAppendEnv(env, bareEnv === 'empty' ? given.map((e) => (e.includes('=') ? e : `${e}=`)) : given);
}

