// Containers in the wire shapes of API 1.41: ContainerJSON for inspect, ContainerSummary for list.
// Docker's booleans come from the one status.
import type { ContainerRecord, MountPoint } from '../../../container/container-record.js';
import { humanDuration } from '../../../lib/human-duration.js';
import type { ContainerView } from './backend.js';

type NetworkSettingsView = ContainerView['network'];

function stateFlags(v: ContainerView) {
  const s = v.record.state.status;
  return {
    running: v.running,
    paused: s === 'paused',
    restarting: s === 'restarting',
    dead: s === 'dead',
  };
}

function mountsOf(r: ContainerRecord) {
  return r.mountPoints.map((m: MountPoint) => ({
    Type: m.Type,
    ...(m.Name !== undefined ? { Name: m.Name } : {}),
    Source: m.Source,
    Destination: m.Destination,
    ...(m.Driver !== undefined ? { Driver: m.Driver } : {}),
    Mode: m.Mode,
    RW: m.RW,
    Propagation: m.Propagation,
  }));
}


/** The container's status line, as dockerd's State.String(). */
export function statusText(r: ContainerRecord, nowMs = Date.now()): string {
  const s = r.state;
  const since = (t: string) => humanDuration(nowMs - Date.parse(t));
  switch (s.status) {
    case 'paused':
      return `Up ${since(s.startedAt)} (Paused)`;
    case 'restarting':
      return `Restarting (${s.exitCode}) ${since(s.finishedAt)} ago`;
    case 'running':
      if (s.health) return `Up ${since(s.startedAt)} (${s.health.Status === 'starting' ? 'health: starting' : s.health.Status})`;
      return `Up ${since(s.startedAt)}`;
    case 'removing':
      return 'Removal In Progress';
    case 'dead':
      return 'Dead';
    case 'created':
      return 'Created';
    case 'exited':
      return s.hasBeenStarted ? `Exited (${s.exitCode}) ${since(s.finishedAt)} ago` : 'Created';
  }
}

/** dockerd's Command column: the path and the arguments, those with spaces in single quotes. */
function commandText(r: ContainerRecord): string {
  if (r.args.length === 0) return r.path;
  return `${r.path} ${r.args.map((a) => (a.includes(' ') ? `'${a}'` : a)).join(' ')}`;
}

export function toContainerSummary(v: ContainerView, withSize: boolean) {
  const r = v.record;
  return {
    Id: r.id,
    Names: [r.name],
    Image: r.config.Image ?? '',
    ImageID: r.image,
    Command: commandText(r),
    Created: Math.floor(Date.parse(r.created) / 1000),
    Ports: portList(v.network.ports),
    ...(withSize ? { SizeRw: v.sizeRw ?? 0, SizeRootFs: v.sizeRootFs ?? 0 } : {}),
    Labels: r.config.Labels ?? {},
    State: r.state.status,
    Status: statusText(r),
    HostConfig: { NetworkMode: r.hostConfig.NetworkMode ?? 'default' },
    // list shows no aliases, as dockerd's does
    NetworkSettings: { Networks: Object.fromEntries(Object.entries(v.network.networks).map(([name, e]) => [name, { ...e, Aliases: null }])) },
    Mounts: mountsOf(r),
  };
}

export function toContainerInspect(v: ContainerView, withSize: boolean) {
  const r = v.record;
  const s = r.state;
  const flags = stateFlags(v);
  const started = s.hasBeenStarted;
  return {
    Id: r.id,
    Created: r.created,
    Path: r.path,
    Args: r.args,
    State: {
      Status: s.status,
      Running: flags.running,
      Paused: flags.paused,
      Restarting: flags.restarting,
      OOMKilled: s.oomKilled,
      Dead: flags.dead,
      Pid: s.pid,
      ExitCode: s.exitCode,
      Error: s.error,
      StartedAt: s.startedAt,
      FinishedAt: s.finishedAt,
      ...(s.health ? { Health: s.health } : {}),
    },
    Image: r.image,
    ResolvConfPath: started || flags.running ? v.resolvConfPath : '',
    HostnamePath: started || flags.running ? v.hostnamePath : '',
    HostsPath: started || flags.running ? v.hostsPath : '',
    LogPath: started ? v.logPath : '',
    Name: r.name,
    RestartCount: r.restartCount,
    Driver: 'overlay2',
    Platform: 'linux',
    MountLabel: '',
    ProcessLabel: '',
    AppArmorProfile: '',
    ExecIDs: v.execIds.length > 0 ? v.execIds : null,
    HostConfig: r.hostConfig,
    GraphDriver: {
      Data: { LowerDir: v.graphDriver.lowerDir, MergedDir: v.graphDriver.mergedDir, UpperDir: v.graphDriver.upperDir, WorkDir: v.graphDriver.workDir },
      Name: 'overlay2',
    },
    ...(withSize ? { SizeRw: v.sizeRw ?? 0, SizeRootFs: v.sizeRootFs ?? 0 } : {}),
    Mounts: mountsOf(r),
    Config: r.config,
    NetworkSettings: networkSettingsOf(v.network),
  };
}

interface PortSummary {
  IP?: string;
  PrivatePort: number;
  PublicPort?: number;
  Type: string;
}

/** ContainerSummary's Ports: each binding, and each exposed port published nowhere (without IP and PublicPort). */
function portList(ports: NetworkSettingsView['ports']): PortSummary[] {
  const out = Object.entries(ports).flatMap(([key, bindings]): PortSummary[] => {
    const [port, type = 'tcp'] = key.split('/');
    if (bindings === null) return [{ PrivatePort: Number(port), Type: type }];
    return bindings.map((b) => ({ IP: b.HostIp, PrivatePort: Number(port), PublicPort: Number(b.HostPort), Type: type }));
  });
  return out.sort((a, b) => a.PrivatePort - b.PrivatePort || a.Type.localeCompare(b.Type) || (a.PublicPort ?? 0) - (b.PublicPort ?? 0));
}

/** API 1.41's NetworkSettings: the default bridge's endpoint is repeated at the top level. */
function networkSettingsOf(n: NetworkSettingsView) {
  const top = n.defaultBridge;
  return {
    Bridge: '',
    SandboxID: n.sandboxId,
    HairpinMode: false,
    LinkLocalIPv6Address: '',
    LinkLocalIPv6PrefixLen: 0,
    Ports: n.ports,
    SandboxKey: n.sandboxKey,
    SecondaryIPAddresses: null,
    SecondaryIPv6Addresses: null,
    EndpointID: top?.EndpointID ?? '',
    Gateway: top?.Gateway ?? '',
    GlobalIPv6Address: top?.GlobalIPv6Address ?? '',
    GlobalIPv6PrefixLen: top?.GlobalIPv6PrefixLen ?? 0,
    IPAddress: top?.IPAddress ?? '',
    IPPrefixLen: top?.IPPrefixLen ?? 0,
    IPv6Gateway: top?.IPv6Gateway ?? '',
    MacAddress: top?.MacAddress ?? '',
    Networks: n.networks,
  };
}
