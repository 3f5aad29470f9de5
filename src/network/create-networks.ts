// The network area: the records loaded (networks and endpoints), the predefined networks made or
// brought in line with the daemon's settings, the IPAM over the host's networks and the service;
// and the plumbing containers' runs attach through: network namespaces under the exec root, the
// CNI plugins, berth's iptables chains, held published ports and the embedded DNS server. It
// answers the Network routes (`api`) and the containers (`containers`: their runs' networking).
import path from 'node:path';
import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import type { FilterArgs } from '../lib/filters.js';
import { Cni } from '../runtime/cni.js';
import { Iptables } from '../runtime/iptables.js';
import { prepareNetnsDir } from '../runtime/netns.js';
import { decodeNetworkCreate } from './create-request.js';
import { DnsRegistry } from './dns/dns-registry.js';
import { DnsServer } from './dns/dns-server.js';
import { host as realHost, type HostNetwork } from './host-network.js';
import { NetworkAttachments } from './network-attachments.js';
import { LOCAL_DRIVERS } from './network-create.js';
import { NetworkFirewall } from './network-firewall.js';
import { openNetworkRecords } from './network-records.js';
import { PublishedPorts } from './published-ports.js';
import { UpstreamResolvers } from './upstream-resolvers.js';

export interface NetworksDeps {
  dataRoot: string;
  execRoot: string;
  events: EventBus;
  log: Logger;
  /** the daemon's settings: iptables, bip, bridge, dns */
  settings: { iptables: boolean; bip: string; bridge: string; dns: readonly string[] };
  /** what the host's networking holds; the real host's by default */
  host?: HostNetwork;
}

export async function createNetworks(deps: NetworksDeps) {
  const { settings, log } = deps;
  const service = await openNetworkRecords({
    dataRoot: deps.dataRoot,
    events: deps.events,
    defaultBridge: { ...(settings.bip ? { bip: settings.bip } : {}), ...(settings.bridge ? { bridgeName: settings.bridge } : {}) },
    host: deps.host,
  });

  const netnsDir = path.join(deps.execRoot, 'netns');
  const netnsFolder = await prepareNetnsDir(netnsDir);
  const registry = new DnsRegistry();
  const upstreams = new UpstreamResolvers(settings.dns);
  const attachments = new NetworkAttachments({
    service,
    cni: new Cni(),
    firewall: new NetworkFirewall(new Iptables({ enabled: settings.iptables }), log),
    ports: new PublishedPorts(),
    dns: { registry, server: new DnsServer({ records: registry, upstreams: (source) => upstreams.of(source), log }), upstreams },
    events: deps.events,
    daemonDns: settings.dns,
    netnsDir,
    hostLinks: () => (deps.host ?? realHost).links(),
    log,
  });

  await attachments.finishRemovals();

  const api = {
    list: (filters: FilterArgs) => service.list(filters),
    inspect: (term: string, scope: string) => service.inspect(term, scope),
    create: (body: unknown) => service.create(decodeNetworkCreate(body)),
    remove: (term: string) => attachments.removeNetwork(term),
    prune: (filters: FilterArgs) => attachments.pruneNetworks(filters),
  };
  const containers = {
    prepare: attachments.prepare.bind(attachments),
    plumb: attachments.plumb.bind(attachments),
    detach: attachments.detach.bind(attachments),
    netnsPath: attachments.netnsPath.bind(attachments),
    reconcile: attachments.reconcile.bind(attachments),
    connect: attachments.connect.bind(attachments),
    disconnect: attachments.disconnect.bind(attachments),
    endpoints: (containerId: string) => service.endpointsOf(containerId),
    network: (id: string) => service.find(id),
    ports: (containerId: string) => attachments.portsOf(containerId),
  };
  const shutdown = async () => {
    await attachments.shutdown();
    await netnsFolder.release();
  };
  return { api, service, containers, drivers: LOCAL_DRIVERS, shutdown };
}
