// The networks that always exist: bridge (the default, on berth's own bridge), host and none.
// Made at the first start and kept, so their IDs stay; the bridge's subnet, gateway and bridge
// follow the daemon's settings (bip, bridge) at every start, as dockerd remakes its default
// bridge from them.
import { randomBytes } from 'node:crypto';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import { DEFAULT_BRIDGE_NAME } from './driver-config.js';
import { formatIp, IpNet } from './ip-net.js';
import type { NetworkRecord } from './network-record.js';
import type { NetworkStore } from './network-store.js';

export interface DefaultBridgeSettings {
  /** the bridge's address with the subnet's length (dockerd's --bip), 172.17.0.1/16 by default */
  bip?: string;
  /** the bridge berth plumbs (dockerd's --bridge), berth0 by default */
  bridgeName?: string;
}

export async function ensurePredefinedNetworks(store: NetworkStore, settings: DefaultBridgeSettings = {}): Promise<void> {
  const byName = (name: string) => store.all().find((n) => n.name === name);
  const bridge = defaultBridge(settings);
  const current = byName('bridge');
  if (current === undefined) await store.put({ ...bridge, id: newId(), created: now() });
  else if (settingsOf(current) !== settingsOf(bridge)) await store.put({ ...bridge, id: current.id, created: current.created });
  if (byName('host') === undefined) await store.put(unaddressed('host', 'host'));
  if (byName('none') === undefined) await store.put(unaddressed('none', 'null'));
}

function defaultBridge(settings: DefaultBridgeSettings): NetworkRecord {
  const bip = IpNet.parse(settings.bip ?? '172.17.0.1/16');
  if (bip === undefined || bip.family !== 4) throw new Error(`invalid bip: ${settings.bip}`);
  const gateway = formatIp({ family: 4, value: bip.address });
  const subnet = bip.toString();
  const bridgeName = settings.bridgeName ?? DEFAULT_BRIDGE_NAME;
  return {
    id: '',
    name: 'bridge',
    driver: 'bridge',
    scope: 'local',
    created: '',
    internal: false,
    attachable: false,
    enableIPv6: false,
    ipam: { driver: 'default', options: null, config: [{ subnet, gateway, requested: { subnet, gateway } }] },
    options: {
      'com.docker.network.bridge.default_bridge': 'true',
      'com.docker.network.bridge.enable_icc': 'true',
      'com.docker.network.bridge.enable_ip_masquerade': 'true',
      'com.docker.network.bridge.host_binding_ipv4': '0.0.0.0',
      'com.docker.network.bridge.name': bridgeName,
      'com.docker.network.driver.mtu': '1500',
    },
    labels: {},
    bridgeName,
  };
}

/** What the daemon's settings decide of the default bridge. */
function settingsOf(n: NetworkRecord): string {
  return JSON.stringify([n.ipam.config, n.options, n.bridgeName]);
}

function unaddressed(name: string, driver: 'host' | 'null'): NetworkRecord {
  return {
    id: newId(),
    name,
    driver,
    scope: 'local',
    created: now(),
    internal: false,
    attachable: false,
    enableIPv6: false,
    ipam: { driver: 'default', options: null, config: [] },
    options: {},
    labels: {},
  };
}

function newId(): string {
  return randomBytes(32).toString('hex');
}

function now(): string {
  return formatRfc3339Nano(nowNanos());
}
