// The network area: the records loaded (networks and endpoints), the predefined networks made or
// brought in line with the daemon's settings, the IPAM over the host's networks, and the service.
// It answers the Network routes (`api`, which structurally satisfies their backend interface) and
// the containers (`service`: endpoints at start and stop, networks found as dockerd finds them).
// Nothing here touches the host's networking: the plumbing joins at the containers' start.
import path from 'node:path';
import type { EventBus } from '../events/event-bus.js';
import { notImplemented } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { decodeNetworkCreate } from './create-request.js';
import { EndpointStore } from './endpoint-store.js';
import { host as realHost, type HostNetwork } from './host-network.js';
import { Ipam } from './ipam.js';
import { NetworkService } from './network-service.js';
import { NetworkStore } from './network-store.js';
import { ensurePredefinedNetworks, type DefaultBridgeSettings } from './predefined-networks.js';

export interface NetworksDeps {
  dataRoot: string;
  events: EventBus;
  /** the daemon's bip and bridge settings */
  defaultBridge?: DefaultBridgeSettings;
  /** what the host's networking holds; the real host's by default */
  host?: HostNetwork;
}

export function createNetworks(deps: NetworksDeps) {
  const root = path.join(deps.dataRoot, 'network');
  const networks = new NetworkStore(path.join(root, 'networks'));
  ensurePredefinedNetworks(networks, deps.defaultBridge);
  const endpoints = new EndpointStore(path.join(root, 'endpoints'));
  const host = deps.host ?? realHost;
  const service = new NetworkService({ networks, endpoints, ipam: new Ipam(() => host.networks()), events: deps.events, host });

  const api = {
    list: (filters: FilterArgs) => service.list(filters),
    inspect: (term: string, scope: string) => service.inspect(term, scope),
    create: (body: unknown) => service.create(decodeNetworkCreate(body)),
    remove: (term: string) => service.remove(term),
    prune: (filters: FilterArgs) => service.prune(filters),
  };
  // Until the containers serve NetworkConnect and NetworkDisconnect (they find the container first,
  // and joining is part of a container's run), the routes check the body and answer 501.
  const notYet = () => Promise.reject(notImplemented('connecting containers to networks is not implemented yet'));
  const connectApi = { connect: notYet, disconnect: notYet };
  return { api, service, connectApi };
}
