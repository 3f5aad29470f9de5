// A swarm network's Services, as `docker network inspect --verbose` shows them (libnetwork
// agent.go Services()): built from the node's endpoint_table alone, one entry per service (a plain
// container's record under its own name) with its VIP, its ingress ports as "Target: %d, Publish:
// %d", and each task's name, endpoint ID and IP, and the address of the node it runs on.
import type { Logger } from 'pino';
import type { ServiceInfoView } from '../../network/swarm-networks.js';
import { readEndpointRecord } from './endpoint-changes.js';
import { ENDPOINT_TABLE, type NetworkTables } from './network-tables.js';

export function networkServices(tables: NetworkTables, networkId: string, log: Logger): Record<string, ServiceInfoView> {
  const services: Record<string, ServiceInfoView> = {};
  for (const [key, value] of tables.getTableByNetwork(ENDPOINT_TABLE, networkId)) {
    const r = readEndpointRecord({ networkId, key }, value, log);
    if (r === undefined) continue;
    const name = r.serviceName !== '' ? r.serviceName : r.name;
    const service = (services[name] ??= { VIP: r.virtualIp, Ports: r.ingressPorts.map((p) => `Target: ${p.targetPort}, Publish: ${p.publishedPort}`), LocalLBIndex: 0, Tasks: [] });
    service.Tasks.push({ Name: r.name, EndpointID: key, EndpointIP: r.endpointIp, Info: { 'Host IP': tables.ownerOf(key) } });
  }
  return services;
}
