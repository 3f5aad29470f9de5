// The network area: the records loaded (networks and endpoints), the predefined networks made or
// brought in line with the daemon's settings, the IPAM over the host's networks and the service;
// and the plumbing containers' runs attach through: network namespaces under the exec root, the
// CNI plugins, berth's iptables chains, held published ports and the embedded DNS server, and for
// swarm networks the overlay driver, the service VIPs' balancers and the routing mesh. It answers
// the Network routes (`api`, given the swarm's networks), the containers (`containers`: their runs'
// networking) and the swarm's agent (`swarm`: its networks, records, peers and ingress), and finds
// this node's networks for the swarm (`find`).
import path from 'node:path';
import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import { EngineError } from '../errors.js';
import { Cni } from '../runtime/cni.js';
import { Iptables } from '../runtime/iptables.js';
import { prepareNetnsDir } from '../runtime/netns.js';
import { DnsRegistry } from './dns/dns-registry.js';
import { DnsServer } from './dns/dns-server.js';
import { host as realHost, type HostNetwork } from './host-network.js';
import { networkApi } from './network-api.js';
import { NetworkAttachments } from './network-attachments.js';
import { LOCAL_DRIVERS } from './network-create.js';
import { NetworkFirewall } from './network-firewall.js';
import type { NetworkRecord } from './network-record.js';
import { OverlayNetworks } from './overlay/overlay-networks.js';
import { openNetworkRecords } from './network-records.js';
import { PublishedPorts } from './published-ports.js';
import type { SwarmNetworks } from './swarm-networks.js';
import { IngressMesh } from './service-lb/ingress-mesh.js';
import { ServiceBalancers } from './service-lb/service-balancers.js';
import { SwarmEndpoints } from './swarm-endpoints.js';
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
  const balancers: ServiceBalancers = new ServiceBalancers({
    containersOn: (networkId) => service.endpointsOn(networkId).map((e) => ({ containerId: e.containerId, netns: attachments.netnsPath(e.containerId) })),
    networksOf: (containerId) => service.endpointsOf(containerId).map((e) => e.networkId),
    log,
  });
  // the mesh's sandbox is made as a container's networking: it and the balancers reach `attachments` once it exists
  const mesh: IngressMesh = new IngressMesh({
    join: (network) => service.joinSwarmNetwork(network),
    leave: (id) => attachments.leaveSwarmNetwork(id),
    prepare: (c) => attachments.prepare(c),
    plumb: (id) => attachments.plumb(id),
    detach: (id) => attachments.detach(id),
    netnsPath: (id) => attachments.netnsPath(id),
    endpointsOf: (id) => service.endpointsOf(id),
    log,
  });
  const swarmEndpoints = new SwarmEndpoints(registry.swarm, balancers, mesh);
  const overlay = new OverlayNetworks(path.join(deps.execRoot, 'overlay'), () => service.joinedSwarmNetworks().map((n) => n.id));
  const upstreams = new UpstreamResolvers(settings.dns);
  const attachments = new NetworkAttachments({
    service,
    cni: new Cni(),
    overlay,
    balancers,
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

  /** the swarm's networks: for the Network routes, and for plain containers joining attachable ones */
  const api = (swarm: SwarmNetworks) => {
    attachments.bindSwarm(swarm);
    return networkApi(service, attachments, swarm);
  };
  const containers = {
    prepare: attachments.prepare.bind(attachments),
    plumb: attachments.plumb.bind(attachments),
    detach: attachments.detach.bind(attachments),
    netnsPath: attachments.netnsPath.bind(attachments),
    reconcile: attachments.reconcile.bind(attachments),
    connect: attachments.connect.bind(attachments),
    disconnect: attachments.disconnect.bind(attachments),
    // a container's docker_gwbridge leg shows in no inspect of it
    endpoints: (containerId: string) => service.endpointsOf(containerId).filter((e) => !e.egressOnly),
    network: (id: string) => service.find(id),
    ports: (containerId: string) => attachments.portsOf(containerId),
    joinSwarmNetwork: service.joinSwarmNetwork.bind(service),
    leaveSwarmNetwork: attachments.leaveSwarmNetwork.bind(attachments),
  };
  /** A network of this node as dockerd's FindNetwork finds one; undefined for none (or several). */
  const find = (term: string): NetworkRecord | undefined => {
    try {
      return service.find(term);
    } catch (err) {
      if (err instanceof EngineError) return undefined;
      throw err;
    }
  };
  const shutdown = async () => {
    // what the swarm's last changes set off ends before the namespaces' folder may go
    await mesh.close();
    await balancers.settled();
    await attachments.shutdown();
    await overlay.close();
    await netnsFolder.release();
  };
  /** what the swarm's agent tells of the overlay networks its tasks are on */
  const swarm = {
    setDataPath: overlay.setDataPath.bind(overlay),
    setPeers: overlay.setPeers.bind(overlay),
    addNetworks: swarmEndpoints.addNetworks.bind(swarmEndpoints),
    leftNetworks: swarmEndpoints.leftNetworks.bind(swarmEndpoints),
    applyEndpoint: swarmEndpoints.apply.bind(swarmEndpoints),
    setServicePorts: swarmEndpoints.setServicePorts.bind(swarmEndpoints),
    setIngress: mesh.setIngress.bind(mesh),
    attachedEndpoints: attachments.attachedEndpoints.bind(attachments),
    watchAttachments: attachments.watchAttachments.bind(attachments),
  };
  return { api, service, containers, swarm, find, drivers: LOCAL_DRIVERS, shutdown };
}
