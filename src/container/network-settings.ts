// A container's NetworkSettings as dockerd shows them: one entry per network it is configured on
// (EndpointSettings), filled from its endpoints while it runs; the default bridge's endpoint also
// at the top level (the fields API 1.41 still carries); its published ports, an exposed port with
// no binding as null; the sandbox (its network namespace) from its first start on.
import { createHash } from 'node:crypto';
import type { PortMapping } from '../network/cni-lists.js';
import type { EndpointRecord } from '../network/endpoint-store.js';
import { defaultToBridge, type NetworkRecord } from '../network/network-record.js';
import type { EndpointSettings } from './config/types.js';
import { networkIfAny, type ContainerNetworks } from './container-networks.js';
import type { ContainerRecord } from './container-record.js';
import { hasProcess } from './container-state.js';

const SHORT_ID_LENGTH = 12;

export interface EndpointView {
  IPAMConfig: EndpointSettings['IPAMConfig'] | null;
  Links: string[] | null;
  Aliases: string[] | null;
  NetworkID: string;
  EndpointID: string;
  Gateway: string;
  IPAddress: string;
  IPPrefixLen: number;
  IPv6Gateway: string;
  GlobalIPv6Address: string;
  GlobalIPv6PrefixLen: number;
  MacAddress: string;
  DriverOpts: Record<string, string> | null;
}

export interface PortBindingView {
  HostIp: string;
  HostPort: string;
}

export interface NetworkSettingsView {
  /** dockerd's sandbox: its ID and the namespace file, from the first start on */
  sandboxId: string;
  sandboxKey: string;
  /** `port/proto` → its bindings, null for an exposed port published nowhere; empty unless running */
  ports: Record<string, PortBindingView[] | null>;
  /** what the default bridge's endpoint shows at the top level */
  defaultBridge: EndpointView | undefined;
  networks: Record<string, EndpointView>;
}


export type NetworkSettingsDeps = Pick<ContainerNetworks, 'endpoints' | 'ports' | 'network' | 'netnsPath'>;

export function networkSettings(networks: NetworkSettingsDeps, record: ContainerRecord): NetworkSettingsView {
  const mode = record.hostConfig.NetworkMode ?? '';
  const running = hasProcess(record.state.status);
  const started = running || record.state.hasBeenStarted;
  if (mode.startsWith('container:') || record.config.NetworkDisabled) return { sandboxId: '', sandboxKey: '', ports: {}, defaultBridge: undefined, networks: {} };

  const endpoints = running ? networks.endpoints(record.id) : [];
  const views: Record<string, EndpointView> = {};
  for (const name of configuredNetworks(record, endpoints, networks)) {
    const network = networkIfAny(networks, name);
    const endpoint = endpoints.find((e) => e.networkId === network?.id);
    views[name] = endpointView(record, configOf(record, name, network), network, endpoint, started);
  }
  return {
    sandboxId: started ? sandboxId(record) : '',
    // the host's namespace has no file of berth's
    sandboxKey: started && mode !== 'host' ? networks.netnsPath(record.id) : '',
    ports: running && mode !== 'host' ? portMap(record, networks.ports(record.id)) : {},
    defaultBridge: views.bridge,
    networks: views,
  };
}


/** While running, the networks it has endpoints on; otherwise its NetworkMode's and those of EndpointsConfig. */
function configuredNetworks(record: ContainerRecord, endpoints: readonly EndpointRecord[], networks: NetworkSettingsDeps): string[] {
  if (endpoints.length > 0) return endpoints.map((e) => networks.network(e.networkId).name);
  const mode = defaultToBridge(record.hostConfig.NetworkMode ?? '');
  const names = [mode, ...Object.keys(record.networkingConfig.EndpointsConfig ?? {}).map(defaultToBridge)];
  const byName = new Map(names.map((n) => [networkIfAny(networks, n)?.name ?? n, true]));
  return [...byName.keys()];
}

function configOf(record: ContainerRecord, name: string, network: NetworkRecord | undefined): EndpointSettings | undefined {
  const configs = record.networkingConfig.EndpointsConfig ?? {};
  const config = configs[name] ?? (network === undefined ? undefined : configs[network.id]) ?? (name === 'bridge' ? configs.default : undefined);
  return config ?? undefined;
}

function endpointView(record: ContainerRecord, config: EndpointSettings | undefined, network: NetworkRecord | undefined, endpoint: EndpointRecord | undefined, started: boolean): EndpointView {
  const [ipv4 = '', prefix4 = '0'] = endpoint?.ipv4Address?.split('/') ?? [];
  const [ipv6 = '', prefix6 = '0'] = endpoint?.ipv6Address?.split('/') ?? [];
  return {
    IPAMConfig: config?.IPAMConfig ?? null,
    Links: config?.Links ?? null,
    Aliases: aliases(record, config, network, started),
    NetworkID: endpoint?.networkId ?? (started && network !== undefined ? network.id : ''),
    EndpointID: endpoint?.id ?? '',
    Gateway: endpoint?.gateway ?? '',
    IPAddress: ipv4,
    IPPrefixLen: Number(prefix4),
    IPv6Gateway: endpoint?.ipv6Gateway ?? '',
    GlobalIPv6Address: ipv6,
    GlobalIPv6PrefixLen: Number(prefix6),
    MacAddress: endpoint?.macAddress ?? '',
    DriverOpts: config?.DriverOpts ?? null,
  };
}

/** The aliases asked for, and on a network of the user's, from the first start on, the short ID dockerd adds. */
function aliases(record: ContainerRecord, config: EndpointSettings | undefined, network: NetworkRecord | undefined, started: boolean): string[] | null {
  const asked = config?.Aliases ?? [];
  const userDefined = network !== undefined && network.name !== 'bridge' && network.driver !== 'host' && network.driver !== 'null';
  const shortId = record.id.slice(0, SHORT_ID_LENGTH);
  const all = userDefined && started && !asked.includes(shortId) ? [...asked, shortId] : asked;
  return all.length > 0 ? all : null;
}

function portMap(record: ContainerRecord, published: readonly PortMapping[]): Record<string, PortBindingView[] | null> {
  const ports: Record<string, PortBindingView[] | null> = {};
  for (const key of Object.keys(record.config.ExposedPorts ?? {})) ports[key] = null;
  for (const p of published) {
    const key = `${p.containerPort}/${p.protocol}`;
    (ports[key] ??= []).push({ HostIp: p.hostIP ?? '0.0.0.0', HostPort: String(p.hostPort) });
  }
  return ports;
}

/** dockerd makes a sandbox per run; berth's is the run's namespace, named from the container and its start. */
function sandboxId(record: ContainerRecord): string {
  return createHash('sha256').update(`${record.id}/${record.state.startedAt}`).digest('hex');
}


