// The facts behind /version and /info, what the data root holds (/system/df), and the events
// behind /events. The counts and sizes come from each area's usage provider, so that every area
// (the build cache next) joins both answers in this one place.
import type { SwarmInfo } from '../swarm/swarm-service.js';
import { statfsSync } from 'node:fs';
import path from 'node:path';
import type { ContainerCounts } from '../container/container-inventory.js';
import type { ContainerView } from '../container/container-view.js';
import type { EventBus } from '../events/event-bus.js';
import type { EngineEvent } from '../events/event.js';
import type { Image } from '../image/image-store.js';
import type { VolumeView } from '../volume/volume-service.js';
import type { ItemSink, StreamSession } from '../lib/stream-session.js';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import { INIT_BINARY } from '../runtime/tool-path.js';
import { BERTH_VERSION, BUILD_INFO } from '../version.js';
import { cgroupWarnings, readCgroupFacts, type CgroupFacts } from './cgroup-facts.js';
import { kernelHasSeccomp, openFileDescriptors, readHostFacts, readSysctlFlag, type HostFacts } from './host-facts.js';
import { eventStream, type EventsRequest } from './event-stream.js';
import { readToolVersions, type ToolVersion } from './tool-versions.js';

export interface VersionFacts {
  version: string;
  gitCommit: string;
  buildTime: string;
  arch: string;
  kernelVersion: string;
  nodeVersion: string;
  tools: ToolVersion[];
}

/** What the image area tells /info and /system/df (its inventory). */
export interface ImageInventory {
  count(): number;
  dataUsage(): { layersSizeBytes: number; images: Array<{ image: Image; sharedSizeBytes: number; containers: number }> };
}

/** What the container area tells /info and /system/df. */
export interface ContainerInventory {
  counts(): ContainerCounts;
  /** every container with its sizes, newest first */
  dataUsage(): ContainerView[];
}

/** What the volume area tells /system/df and /info. */
export interface VolumeInventory {
  dataUsage(): Promise<Array<{ view: VolumeView; size: number; refCount: number }>>;
  /** the volume drivers /info lists among its plugins */
  drivers(): string[];
}

/** GET /system/df's answer, in the areas' own terms. */
export interface DataUsage {
  layersSizeBytes: number;
  images: Array<{ image: Image; sharedSizeBytes: number; containers: number }>;
  containers: ContainerView[];
  volumes: Array<{ view: VolumeView; size: number; refCount: number }>;
}

/** The daemon settings /info reports, which SIGHUP may change. */
export interface ReportedSettings {
  debug: boolean;
  labels: string[];
}

export interface InfoFacts {
  id: string;
  version: string;
  containers: ContainerCounts;
  images: number;
  backingFilesystem: string;
  cgroup: CgroupFacts;
  host: HostFacts;
  ipv4Forwarding: boolean;
  bridgeNfIptables: boolean;
  bridgeNfIp6tables: boolean;
  debug: boolean;
  openFiles: number;
  systemTime: string;
  loggingDriver: string;
  networkDrivers: readonly string[];
  logDrivers: readonly string[];
  volumeDrivers: readonly string[];
  eventListeners: number;
  dataRoot: string;
  proxies: { http: string; https: string; no: string };
  labels: string[];
  runcCommit: string;
  /** the init of `--init`: its name, and its commit when its version says one */
  init: { binary: string; commit: string };
  securityOptions: string[];
  warnings: string[];
  swarm: SwarmInfo;
}

export interface SystemServiceOptions {
  engineId: string;
  dataRoot: string;
  events: EventBus;
  settings: ReportedSettings;
  inventories: { images: ImageInventory; containers: ContainerInventory; volumes: VolumeInventory };
  /** the network drivers /info lists among its plugins */
  networkDrivers: readonly string[];
  /** the log drivers /info lists among its plugins */
  logDrivers: readonly string[];
  /** the log driver of containers that name none (log-driver) */
  loggingDriver: string;
  /** Warnings about how the daemon was started, such as plain TCP. */
  startupWarnings: string[];
  /** this node's part in a swarm */
  swarm: { info(): Promise<SwarmInfo> };
  env?: NodeJS.ProcessEnv;
}

export class SystemService {
  private readonly opts: SystemServiceOptions;
  private readonly host: HostFacts;
  private readonly cgroup: CgroupFacts;
  private settings: ReportedSettings;
  private tools: Promise<ToolVersion[]> | undefined;

  constructor(opts: SystemServiceOptions) {
    this.opts = opts;
    this.settings = opts.settings;
    this.host = readHostFacts();
    this.cgroup = readCgroupFacts();
  }

  async version(): Promise<VersionFacts> {
    return {
      version: BERTH_VERSION,
      gitCommit: BUILD_INFO.gitCommit,
      buildTime: BUILD_INFO.buildTime,
      arch: this.host.goArch,
      kernelVersion: this.host.kernelVersion,
      nodeVersion: process.versions.node,
      tools: await this.toolVersions(),
    };
  }

  async info(): Promise<InfoFacts> {
    const settings = this.settings;
    const env = this.opts.env ?? process.env;
    const containers = this.opts.inventories.containers.counts();
    const images = this.opts.inventories.images.count();
    const ipv4Forwarding = readSysctlFlag('net/ipv4/ip_forward');
    const bridgeNfIptables = readSysctlFlag('net/bridge/bridge-nf-call-iptables');
    const bridgeNfIp6tables = readSysctlFlag('net/bridge/bridge-nf-call-ip6tables');
    const warnings = [...this.opts.startupWarnings, ...cgroupWarnings(this.cgroup)];
    if (!ipv4Forwarding) warnings.push('WARNING: IPv4 forwarding is disabled');
    if (!bridgeNfIptables) warnings.push('WARNING: bridge-nf-call-iptables is disabled');
    if (!bridgeNfIp6tables) warnings.push('WARNING: bridge-nf-call-ip6tables is disabled');
    const tools = await this.toolVersions();
    const runc = tools.find((t) => t.name === 'runc');
    return {
      id: this.opts.engineId,
      version: BERTH_VERSION,
      containers,
      images,
      backingFilesystem: backingFilesystem(this.opts.dataRoot),
      cgroup: this.cgroup,
      host: this.host,
      ipv4Forwarding,
      bridgeNfIptables,
      bridgeNfIp6tables,
      debug: settings.debug,
      openFiles: openFileDescriptors(),
      systemTime: formatRfc3339Nano(nowNanos()),
      loggingDriver: this.opts.loggingDriver,
      networkDrivers: this.opts.networkDrivers,
      logDrivers: this.opts.logDrivers,
      volumeDrivers: this.opts.inventories.volumes.drivers(),
      eventListeners: this.opts.events.subscriberCount,
      dataRoot: this.opts.dataRoot,
      proxies: {
        http: maskCredentials(env.HTTP_PROXY ?? env.http_proxy ?? ''),
        https: maskCredentials(env.HTTPS_PROXY ?? env.https_proxy ?? ''),
        no: env.NO_PROXY ?? env.no_proxy ?? '',
      },
      labels: settings.labels,
      runcCommit: runc?.commit ?? '',
      init: { binary: path.basename(INIT_BINARY), commit: tools.find((t) => t.name === 'docker-init')?.commit ?? '' },
      securityOptions: kernelHasSeccomp() ? ['name=seccomp,profile=default'] : [],
      warnings,
      swarm: await this.opts.swarm.info(),
    };
  }

  /** The engine and its host, as the metrics' engine_info and its cpu and memory gauges tell them. */
  engineFacts() {
    return {
      version: BERTH_VERSION,
      commit: BUILD_INFO.gitCommit,
      architecture: this.host.architecture,
      graphdriver: 'overlay2',
      kernel: this.host.kernelVersion,
      os: this.host.operatingSystem,
      osType: 'linux',
      osVersion: this.host.osVersion,
      daemonId: this.opts.engineId,
      cpus: this.host.cpus,
      memoryBytes: this.host.memTotalBytes,
    };
  }

  /** Takes the settings SIGHUP reloaded, and publishes the daemon's reload event as dockerd does. */
  reload(settings: ReportedSettings): void {
    this.settings = settings;
    this.opts.events.publish('daemon', 'reload', {
      id: this.opts.engineId,
      attributes: { debug: String(settings.debug), labels: `[${settings.labels.join(' ')}]`, name: this.host.hostname },
    });
  }

  /** What the data root holds, area by area. */
  async dataUsage(): Promise<DataUsage> {
    const { images, containers, volumes } = this.opts.inventories;
    return { ...images.dataUsage(), containers: containers.dataUsage(), volumes: await volumes.dataUsage() };
  }

  events(req: EventsRequest): StreamSession<ItemSink<EngineEvent>> {
    return eventStream(this.opts.events, req);
  }

  private toolVersions(): Promise<ToolVersion[]> {
    this.tools ??= readToolVersions();
    return this.tools;
  }
}

/** `http://user:secret@proxy:3128` → `http://xxxxx:xxxxx@proxy:3128`, as dockerd shows proxies. */
function maskCredentials(proxy: string): string {
  return proxy.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]+@/i, '$1xxxxx:xxxxx@');
}

const FILESYSTEM_NAMES: Record<number, string> = {
  0xef53: 'extfs',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x01021994: 'tmpfs',
  0x794c7630: 'overlayfs',
  0x2fc12fc1: 'zfs',
  0xf2f52010: 'f2fs',
};

function backingFilesystem(dir: string): string {
  const type = statfsSync(dir).type;
  return FILESYSTEM_NAMES[type] ?? `0x${type.toString(16)}`;
}
