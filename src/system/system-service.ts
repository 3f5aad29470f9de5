// The facts behind /version and /info, and the event subscription behind /events.
import { statfsSync } from 'node:fs';
import type { EventBus, Subscription } from '../events/event-bus.js';
import type { EngineEvent } from '../events/event.js';
import { eventMatches } from '../events/event-filter.js';
import type { FilterArgs } from '../lib/filters.js';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import { BERTH_VERSION, BUILD_INFO } from '../version.js';
import { cgroupWarnings, readCgroupFacts, type CgroupFacts } from './cgroup-facts.js';
import { kernelHasSeccomp, openFileDescriptors, readHostFacts, readSysctlFlag, type HostFacts } from './host-facts.js';
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

export interface ContainerCounts {
  total: number;
  running: number;
  paused: number;
  stopped: number;
}

/** What an area that owns containers or images tells /info; later areas register one each. */
export interface Inventory {
  containerCounts?(): ContainerCounts;
  imageCount?(): number;
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
  eventListeners: number;
  dataRoot: string;
  proxies: { http: string; https: string; no: string };
  labels: string[];
  runcCommit: string;
  securityOptions: string[];
  warnings: string[];
}

export interface SystemServiceOptions {
  engineId: string;
  dataRoot: string;
  events: EventBus;
  settings: ReportedSettings;
  inventories: Inventory[];
  /** Warnings about how the daemon was started, such as plain TCP. */
  startupWarnings: string[];
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
    const containers: ContainerCounts = { total: 0, running: 0, paused: 0, stopped: 0 };
    let images = 0;
    for (const inv of this.opts.inventories) {
      const c = inv.containerCounts?.();
      if (c) for (const k of Object.keys(containers) as Array<keyof ContainerCounts>) containers[k] += c[k];
      images += inv.imageCount?.() ?? 0;
    }
    const ipv4Forwarding = readSysctlFlag('net/ipv4/ip_forward');
    const bridgeNfIptables = readSysctlFlag('net/bridge/bridge-nf-call-iptables');
    const bridgeNfIp6tables = readSysctlFlag('net/bridge/bridge-nf-call-ip6tables');
    const warnings = [...this.opts.startupWarnings, ...cgroupWarnings(this.cgroup)];
    if (!ipv4Forwarding) warnings.push('WARNING: IPv4 forwarding is disabled');
    if (!bridgeNfIptables) warnings.push('WARNING: bridge-nf-call-iptables is disabled');
    if (!bridgeNfIp6tables) warnings.push('WARNING: bridge-nf-call-ip6tables is disabled');
    const runc = (await this.toolVersions()).find((t) => t.name === 'runc');
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
      loggingDriver: 'json-file',
      eventListeners: this.opts.events.subscriberCount,
      dataRoot: this.opts.dataRoot,
      proxies: {
        http: maskCredentials(env.HTTP_PROXY ?? env.http_proxy ?? ''),
        https: maskCredentials(env.HTTPS_PROXY ?? env.https_proxy ?? ''),
        no: env.NO_PROXY ?? env.no_proxy ?? '',
      },
      labels: settings.labels,
      runcCommit: runc?.commit ?? '',
      securityOptions: kernelHasSeccomp() ? ['name=seccomp,profile=default'] : [],
      warnings,
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

  subscribeEvents(options: { sinceNanos?: bigint; untilNanos?: bigint; filters: FilterArgs }): { past: EngineEvent[]; live: Subscription } {
    const { filters } = options;
    return this.opts.events.subscribe({
      sinceNanos: options.sinceNanos,
      untilNanos: options.untilNanos,
      accept: filters.size === 0 ? undefined : (ev) => eventMatches(filters, ev),
    });
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
