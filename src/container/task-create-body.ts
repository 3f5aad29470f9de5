// A swarm task's container as dockerd's executor asks its daemon for one (moby v20.10
// daemon/cluster/executor/container/container.go: config(), hostConfig(), and validateMounts of
// validate.go): the create body, before normalization. What the executor leaves out stays out: no
// restart policy (the swarm restarts tasks, not the engine), no AutoRemove, no StopTimeout (the
// grace period is the stop's, given when the task is shut down).
import { invalidParameter } from '../errors.js';
import { familiarString, parseNormalizedReference, withDefaultTag } from '../image/reference.js';
import type { ContainerSpec, Mount as TaskMount, PortConfig, TaskSpec } from '../swarm/services/service-types.js';
import type { ContainerConfig, HostConfig, Mount, PortBinding } from './config/types.js';

export interface TaskContainerInput {
  /** the com.docker.swarm.* labels, over ContainerSpec.Labels */
  labels: Record<string, string>;
  spec: TaskSpec;
  /** the task's published ports of PublishMode host; PublishedPort 0 takes any free port */
  hostPorts: readonly PortConfig[];
  /** the spec's LogDriver, or the swarm's default; the daemon's when undefined */
  logDriver?: { Name: string; Options?: Record<string, string> };
  /** the network the container runs on first (a swarm network's placeholder, by ID); the default bridge when undefined */
  networkMode?: string;
}

/** The part of Privileges dockerd 20.10 applies (applyPrivileges); the rest came in later versions. */
interface Privileges {
  CredentialSpec?: { Config?: string; File?: string; Registry?: string };
  SELinuxContext?: { Disable?: boolean; User?: string; Role?: string; Type?: string; Level?: string };
}

/** The body's Config and HostConfig; throws the executor's words for a spec it can't run. */
export function taskCreateBody(input: TaskContainerInput): { config: ContainerConfig; hostConfig: HostConfig } {
  const spec = input.spec.ContainerSpec;
  // swarmkit's exec.ErrRuntimeUnsupported and the executor's ErrImageRequired
  if (spec === undefined) throw invalidParameter('exec: unsupported runtime');
  if (spec.Image === '') throw invalidParameter('dockerexec: image required');
  validateMounts(spec.Mounts ?? []);
  return { config: taskConfig(spec, input), hostConfig: taskHostConfig(spec, input) };
}

function taskConfig(spec: ContainerSpec, input: TaskContainerInput): ContainerConfig {
  const config: ContainerConfig = {
    Labels: { ...spec.Labels, ...input.labels },
    StopSignal: spec.StopSignal,
    Tty: spec.TTY,
    OpenStdin: spec.OpenStdin,
    User: spec.User,
    Env: spec.Env,
    Hostname: spec.Hostname,
    WorkingDir: spec.Dir,
    Image: imageName(spec.Image),
    Healthcheck: spec.Healthcheck,
  };
  const exposed = Object.fromEntries(input.hostPorts.map((p) => [portKey(p), {}]));
  if (Object.keys(exposed).length > 0) config.ExposedPorts = exposed;
  // a Command replaces the image's whole invocation (Args are its arguments); Args alone are the image's Entrypoint's
  if ((spec.Command ?? []).length > 0) {
    config.Entrypoint = spec.Command;
    config.Cmd = spec.Args ?? [];
  } else if ((spec.Args ?? []).length > 0) {
    config.Cmd = spec.Args;
  }
  return config;
}

function taskHostConfig(spec: ContainerSpec, input: TaskContainerInput): HostConfig {
  const limits = input.spec.Resources?.Limits;
  const hc: HostConfig = {
    GroupAdd: spec.Groups,
    PortBindings: portBindings(input.hostPorts),
    Mounts: (spec.Mounts ?? []).map(convertMount),
    ReadonlyRootfs: spec.ReadOnly,
    // swarmkit's default isolation, as the engine's
    Isolation: spec.Isolation || 'default',
    Init: spec.Init ?? undefined,
    Sysctls: spec.Sysctls,
    CapAdd: spec.CapabilityAdd,
    CapDrop: spec.CapabilityDrop,
    Ulimits: spec.Ulimits ?? [],
    // the API's Limits.Pids is swarmkit's ContainerSpec.PidsLimit
    ...((limits?.Pids ?? 0) > 0 ? { PidsLimit: limits?.Pids } : {}),
    ...((limits?.MemoryBytes ?? 0) > 0 ? { Memory: limits?.MemoryBytes } : {}),
    ...((limits?.NanoCPUs ?? 0) > 0 ? { NanoCpus: limits?.NanoCPUs } : {}),
  };
  if (spec.DNSConfig !== undefined) {
    hc.Dns = spec.DNSConfig.Nameservers;
    hc.DnsSearch = spec.DNSConfig.Search;
    hc.DnsOptions = spec.DNSConfig.Options;
  }
  const securityOpt = privilegeOptions(spec.Privileges as Privileges | undefined);
  if (securityOpt.length > 0) hc.SecurityOpt = securityOpt;
  // swarmkit keeps hosts(5) lines, "IP name aliases…"; ExtraHosts takes "name:IP" (the aliases are left out, as 20.10 leaves them)
  const extraHosts = (spec.Hosts ?? []).map((line) => line.trim().split(/\s+/)).filter((parts) => parts.length > 1).map(([ip, name]) => `${name}:${ip}`);
  if (extraHosts.length > 0) hc.ExtraHosts = extraHosts;
  if (input.logDriver !== undefined) hc.LogConfig = { Type: input.logDriver.Name, Config: input.logDriver.Options };
  if (input.networkMode !== undefined) hc.NetworkMode = input.networkMode;
  return hc;
}

/** The executor's image(): the familiar name with its tag ("busybox:latest"), or the text as given when it is no reference. */
function imageName(raw: string): string {
  try {
    return familiarString(withDefaultTag(parseNormalizedReference(raw)));
  } catch {
    return raw;
  }
}

function portKey(p: PortConfig): string {
  return `${p.TargetPort ?? 0}/${(p.Protocol ?? 'tcp').toLowerCase()}`;
}

/** One binding per target port (a later one for the same port replaces it, as the executor's map does); no host port: any free one. */
function portBindings(ports: readonly PortConfig[]): Record<string, PortBinding[]> {
  return Object.fromEntries(ports.map((p) => [portKey(p), [(p.PublishedPort ?? 0) !== 0 ? { HostPort: String(p.PublishedPort) } : {}]]));
}

/** convertMount: the engine's Mount, without Consistency (the executor drops it). */
function convertMount(m: TaskMount): Mount {
  const mount: Mount = { Type: m.Type, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly };
  if (m.BindOptions !== undefined) mount.BindOptions = { ...m.BindOptions };
  if (m.VolumeOptions !== undefined) {
    const { NoCopy, Labels, DriverConfig } = m.VolumeOptions;
    mount.VolumeOptions = { NoCopy, ...(Labels ? { Labels: { ...Labels } } : {}), ...(DriverConfig ? { DriverConfig: { Name: DriverConfig.Name, ...(DriverConfig.Options ? { Options: { ...DriverConfig.Options } } : {}) } } : {}) };
  }
  if (m.TmpfsOptions !== undefined) mount.TmpfsOptions = { SizeBytes: m.TmpfsOptions.SizeBytes, Mode: m.TmpfsOptions.Mode };
  return mount;
}

/** validate.go's validateMounts, in its words (the engine's own checks of Mounts come after, at create). */
function validateMounts(mounts: readonly TaskMount[]): void {
  for (const m of mounts) {
    if (!m.Target.startsWith('/') && m.Type !== 'npipe') throw invalidParameter(`invalid mount target, must be an absolute path: ${m.Target}`);
    const source = m.Source ?? '';
    if (m.Type === 'bind' && !source.startsWith('/')) throw invalidParameter(`invalid bind mount source, must be an absolute path: ${source}`);
    if (m.Type === 'volume' && source.startsWith('/')) throw invalidParameter(`invalid volume mount source, must not be an absolute path: ${source}`);
    if (m.Type === 'tmpfs' && source !== '') throw invalidParameter('invalid tmpfs source, source must be empty');
    if (m.Type === 'npipe' && source === '') throw invalidParameter('invalid npipe source, source must not be empty');
    if (!['bind', 'volume', 'tmpfs', 'npipe'].includes(m.Type)) throw invalidParameter(`invalid mount type: ${m.Type}`);
  }
}

/** applyPrivileges: the credential spec and the SELinux context as security options. */
function privilegeOptions(privileges: Privileges | undefined): string[] {
  const out: string[] = [];
  const credentials = privileges?.CredentialSpec;
  if (credentials?.File) out.push(`credentialspec=file://${credentials.File}`);
  else if (credentials?.Registry) out.push(`credentialspec=registry://${credentials.Registry}`);
  else if (credentials?.Config) out.push(`credentialspec=config://${credentials.Config}`);
  const selinux = privileges?.SELinuxContext;
  if (selinux?.Disable) out.push('label=disable');
  if (selinux?.User) out.push(`label=user:${selinux.User}`);
  if (selinux?.Role) out.push(`label=role:${selinux.Role}`);
  if (selinux?.Level) out.push(`label=level:${selinux.Level}`);
  if (selinux?.Type) out.push(`label=type:${selinux.Type}`);
  return out;
}
