// The network area's records, loaded: networks and endpoints, the predefined networks made or
// brought in line with the daemon's bip and bridge settings, and the service over them with the
// IPAM over the host's networks. Nothing here touches the host's networking.
import path from 'node:path';
import type { EventBus } from '../events/event-bus.js';
import { EndpointStore } from './endpoint-store.js';
import { host as realHost, type HostNetwork } from './host-network.js';
import { Ipam } from './ipam.js';
import { NetworkService } from './network-service.js';
import { NetworkStore } from './network-store.js';
import { ensurePredefinedNetworks, type DefaultBridgeSettings } from './predefined-networks.js';

export interface NetworkRecordsDeps {
  dataRoot: string;
  events: EventBus;
  /** the daemon's bip and bridge settings */
  defaultBridge?: DefaultBridgeSettings;
  /** what the host's networking holds; the real host's by default */
  host?: HostNetwork;
}

export async function openNetworkRecords(deps: NetworkRecordsDeps): Promise<NetworkService> {
  const root = path.join(deps.dataRoot, 'network');
  const networks = new NetworkStore(path.join(root, 'networks'), path.join(root, 'removing'));
  await ensurePredefinedNetworks(networks, deps.defaultBridge);
  const endpoints = new EndpointStore(path.join(root, 'endpoints'));
  const host = deps.host ?? realHost;
  return new NetworkService({ networks, endpoints, ipam: new Ipam(() => host.networks()), events: deps.events, host });
}
