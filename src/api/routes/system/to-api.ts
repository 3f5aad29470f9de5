// berth's system facts and events in the shapes of the wire.
import { toSwarmInfo } from '../swarm/to-api.js';
import type { EngineEvent } from '../../../events/event.js';
import type { InfoFacts, VersionFacts } from '../../../system/system-service.js';
import { CURRENT_API_VERSION, MIN_API_VERSION } from '../../api-version.js';
import type { EventMessage, SystemInfo, SystemVersion } from '../../types/system.js';

export function toSystemVersion(v: VersionFacts): SystemVersion {
  const engineDetails: Record<string, string> = {
    ApiVersion: CURRENT_API_VERSION,
    Arch: v.arch,
    BuildTime: v.buildTime,
    Experimental: 'false',
    GitCommit: v.gitCommit,
    GoVersion: runtimeVersion(v),
    KernelVersion: v.kernelVersion,
    MinAPIVersion: MIN_API_VERSION,
    NodeVersion: v.nodeVersion,
    Os: 'linux',
  };
  return {
    Platform: { Name: 'berth' },
    Components: [
      { Name: 'Engine', Version: v.version, Details: engineDetails },
      ...v.tools.map((t) => ({ Name: t.name, Version: t.version, Details: { GitCommit: t.commit } })),
    ],
    Version: v.version,
    ApiVersion: CURRENT_API_VERSION,
    MinAPIVersion: MIN_API_VERSION,
    GitCommit: v.gitCommit,
    GoVersion: runtimeVersion(v),
    Os: 'linux',
    Arch: v.arch,
    KernelVersion: v.kernelVersion,
    BuildTime: v.buildTime,
  };
}

/** What GoVersion says of dockerd (runtime.Version(), "go1.19.8"), said of berth's runtime: "node20.20.2". */
function runtimeVersion(v: VersionFacts): string {
  return `node${v.nodeVersion}`;
}

export function toSystemInfo(f: InfoFacts): SystemInfo {
  const c = f.cgroup;
  return {
    ID: f.id,
    Containers: f.containers.total,
    ContainersRunning: f.containers.running,
    ContainersPaused: f.containers.paused,
    ContainersStopped: f.containers.stopped,
    Images: f.images,
    Driver: 'overlay2',
    DriverStatus: [['Backing Filesystem', f.backingFilesystem]],
    Plugins: { Volume: [...f.volumeDrivers], Network: [...f.networkDrivers], Authorization: null, Log: [...f.logDrivers] },
    MemoryLimit: c.memoryLimit,
    SwapLimit: c.swapLimit,
    KernelMemory: c.kernelMemory,
    KernelMemoryTCP: c.kernelMemoryTcp,
    CpuCfsPeriod: c.cpuCfsPeriod,
    CpuCfsQuota: c.cpuCfsQuota,
    CPUShares: c.cpuShares,
    CPUSet: c.cpuSet,
    PidsLimit: c.pidsLimit,
    IPv4Forwarding: f.ipv4Forwarding,
    BridgeNfIptables: f.bridgeNfIptables,
    BridgeNfIp6tables: f.bridgeNfIp6tables,
    Debug: f.debug,
    NFd: f.openFiles,
    OomKillDisable: c.oomKillDisable,
    SystemTime: f.systemTime,
    LoggingDriver: f.loggingDriver,
    CgroupDriver: 'cgroupfs',
    CgroupVersion: c.version,
    NEventsListener: f.eventListeners,
    KernelVersion: f.host.kernelVersion,
    OperatingSystem: f.host.operatingSystem,
    OSVersion: f.host.osVersion,
    OSType: 'linux',
    Architecture: f.host.architecture,
    IndexServerAddress: 'https://index.docker.io/v1/',
    RegistryConfig: {
      AllowNondistributableArtifactsCIDRs: [],
      AllowNondistributableArtifactsHostnames: [],
      InsecureRegistryCIDRs: ['127.0.0.0/8'],
      IndexConfigs: { 'docker.io': { Name: 'docker.io', Mirrors: [], Secure: true, Official: true } },
      Mirrors: [],
    },
    NCPU: f.host.cpus,
    MemTotal: f.host.memTotalBytes,
    GenericResources: null,
    DockerRootDir: f.dataRoot,
    HttpProxy: f.proxies.http,
    HttpsProxy: f.proxies.https,
    NoProxy: f.proxies.no,
    Name: f.host.hostname,
    Labels: f.labels,
    ExperimentalBuild: false,
    ServerVersion: f.version,
    Runtimes: { runc: { path: 'runc' } },
    DefaultRuntime: 'runc',
    Swarm: toSwarmInfo(f.swarm),
    // containers outlive berthd under conmon, and the next start adopts them
    LiveRestoreEnabled: true,
    Isolation: '',
    InitBinary: f.init.binary,
    ContainerdCommit: { ID: '', Expected: '' },
    RuncCommit: { ID: f.runcCommit, Expected: f.runcCommit },
    InitCommit: { ID: f.init.commit, Expected: f.init.commit },
    SecurityOptions: f.securityOptions,
    Warnings: f.warnings.length > 0 ? f.warnings : null,
  };
}

export function toEventMessage(ev: EngineEvent): EventMessage {
  const legacy: Pick<EventMessage, 'status' | 'id' | 'from'> = {};
  // dockerd fills the deprecated fields for container and image events only
  if (ev.type === 'container' || ev.type === 'image') {
    legacy.status = ev.action;
    legacy.id = ev.actor.id;
    if (ev.type === 'container' && ev.actor.attributes.image) legacy.from = ev.actor.attributes.image;
  }
  return {
    ...legacy,
    Type: ev.type,
    Action: ev.action,
    Actor: { ID: ev.actor.id, Attributes: { ...ev.actor.attributes } },
    scope: ev.scope,
    time: Number(ev.timeNanos / 1_000_000_000n),
    timeNano: ev.timeNanos,
  };
}

/** One event as a JSON line. JSON.stringify can't print a bigint exactly, so timeNano, last as in dockerd, is spliced in. */
export function encodeEventMessage(msg: EventMessage): string {
  const { timeNano, ...rest } = msg;
  return `${JSON.stringify(rest).slice(0, -1)},"timeNano":${timeNano.toString()}}`;
}
