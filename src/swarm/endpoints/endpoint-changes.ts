// What a change of an endpoint_table entry means to a node's DNS and load balancers, by Docker's
// newer rules (libnetwork master agent.go handleEpTableEvent): a record that cannot be read, or has
// no name or no valid endpoint IP, is dropped with a log line; an update equivalent but for
// `service_disabled` only disables or enables the endpoint (it leaves the task lists and the load
// balancer and keeps the VIP, or comes back); any other change is the old record removed, then the
// new one added; an equivalent re-send changes nothing. swarmEndpointChange gives a change as the
// network area takes it (its DNS names and load balancers).
import { isIPv4 } from 'node:net';
import type { Logger } from 'pino';
import type { EndpointRecord } from '../../generated/libnetwork/agent_pb.js';
import type { SwarmEndpointChange } from '../../network/dns/swarm-names.js';
import { decodeEndpointRecord } from '../endpoint-record.js';
import type { TableEvent } from './network-tables.js';

export type EndpointChange = { kind: 'add' | 'remove' | 'disable' | 'enable'; networkId: string; endpointId: string; record: EndpointRecord };

/** PortConfig's protocol enum, by value */
const PROTOCOLS = ['tcp', 'udp', 'sctp'] as const;

export function endpointChanges(event: TableEvent, log: Logger): EndpointChange[] {
  const prev = readEndpointRecord(event, event.prev, log);
  const now = readEndpointRecord(event, event.value, log);
  const change = (kind: EndpointChange['kind'], record: EndpointRecord): EndpointChange => ({ kind, networkId: event.networkId, endpointId: event.key, record });
  if (prev !== undefined && now !== undefined && equivalent(prev, now)) {
    if (prev.serviceDisabled === now.serviceDisabled) return [];
    return [change(now.serviceDisabled ? 'disable' : 'enable', now)];
  }
  const out: EndpointChange[] = [];
  if (prev !== undefined) out.push(change('remove', prev));
  if (now !== undefined) {
    out.push(change('add', now));
    if (now.serviceDisabled) out.push(change('disable', now));
  }
  return out;
}

/** The change as the network area applies it: the record as plain data. */
export function swarmEndpointChange({ kind, endpointId, record: r }: EndpointChange): SwarmEndpointChange {
  const ingressPorts = r.ingressPorts.map((p) => ({ protocol: PROTOCOLS[p.protocol], publishedPort: p.publishedPort, targetPort: p.targetPort }));
  const endpoint = { endpointId, name: r.name, serviceName: r.serviceName, serviceId: r.serviceId, virtualIp: r.virtualIp, ip: r.endpointIp, aliases: r.aliases, taskAliases: r.taskAliases, disabled: r.serviceDisabled, ingressPorts };
  return { kind, endpoint };
}

/** The entry's record as consumers take it: undefined (and a log line) when unreadable, nameless or without a valid IP. */
export function readEndpointRecord(event: Pick<TableEvent, 'networkId' | 'key'>, bytes: Uint8Array | undefined, log: Logger): EndpointRecord | undefined {
  if (bytes === undefined) return undefined;
  let record: EndpointRecord;
  try {
    record = decodeEndpointRecord(bytes);
  } catch (err) {
    log.warn({ err, network: event.networkId, endpoint: event.key }, 'swarm: an endpoint record that cannot be read was dropped');
    return undefined;
  }
  if (record.name === '' || !isIPv4(record.endpointIp)) {
    log.warn({ network: event.networkId, endpoint: event.key, name: record.name, ip: record.endpointIp }, 'swarm: an endpoint record without a name or a valid IP was dropped');
    return undefined;
  }
  return record;
}

/** libnetwork's EquivalentTo: every field but service_disabled. */
function equivalent(a: EndpointRecord, b: EndpointRecord): boolean {
  const ports = (r: EndpointRecord) => JSON.stringify(r.ingressPorts.map((p) => [p.name, p.protocol, p.targetPort, p.publishedPort]));
  return (
    a.name === b.name &&
    a.serviceName === b.serviceName &&
    a.serviceId === b.serviceId &&
    a.virtualIp === b.virtualIp &&
    a.endpointIp === b.endpointIp &&
    ports(a) === ports(b) &&
    JSON.stringify(a.aliases) === JSON.stringify(b.aliases) &&
    JSON.stringify(a.taskAliases) === JSON.stringify(b.taskAliases)
  );
}
