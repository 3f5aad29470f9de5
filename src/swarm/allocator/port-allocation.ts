// swarmkit's ingress published ports (its cnmallocator portallocator and controlapi's
// checkPortConflicts): per protocol, a published port of 0 takes the lowest free port of the
// dynamic range (swarmkit hands them out after the last one given), a port asked for may be any
// of the node port range. swarmkit fixes the ranges at 30000–32767 and 1–65535; in berth they are
// the settings of the daemon of the manager that allocates (node-port-ranges.ts). Each port held
// is a key in the store, created in the transaction that writes its service, so that two managers
// never hand out one port.
import { EngineError } from '../../errors.js';
import { formatPortRange, type NodePortRanges, type PortRange } from '../node-port-ranges.js';
import type { ServiceRecord } from '../services/service-records.js';
import type { PortConfig } from '../services/service-types.js';

export const PORTS = '/allocation/ports/';

export function portKey(p: PortConfig): string {
  return `${PORTS}${p.Protocol}/${p.PublishedPort ?? 0}`;
}

/** The keys of the ingress ports an endpoint holds (host-mode ports are placed per node, not held). */
export function ingressPortKeys(ports: readonly PortConfig[]): string[] {
  return ports.filter((p) => p.PublishMode === 'ingress' && (p.PublishedPort ?? 0) !== 0).map(portKey);
}

/** controlapi's checkPortConflicts, in its words: the ports asked for against every other service's, as asked and as published. */
export function checkPortConflicts(ports: readonly PortConfig[], serviceId: string, services: readonly ServiceRecord[]): void {
  const asked = ports.filter((p) => (p.PublishedPort ?? 0) !== 0);
  const ingress = new Set(asked.filter((p) => p.PublishMode === 'ingress').map(portKey));
  const host = new Set(asked.filter((p) => p.PublishMode === 'host').map(portKey));
  if (ingress.size === 0 && host.size === 0) return;
  for (const service of services) {
    if (service.id === serviceId) continue;
    for (const p of [...(service.spec.EndpointSpec?.Ports ?? []), ...service.endpoint.ports]) {
      if ((p.PublishedPort ?? 0) === 0) continue;
      const key = portKey(p);
      if (p.PublishMode === 'host' && ingress.has(key)) throw inUse(p, service, 'a host-published port');
      if (p.PublishMode === 'ingress' && (ingress.has(key) || host.has(key))) throw inUse(p, service, 'an ingress port');
    }
  }
}

/**
 * The ports as published: a port asked for (in either mode) must lie in the node port range; an
 * ingress port of 0 keeps the port its service had for it (same target, protocol and mode, and
 * still in the node port range) or takes the lowest dynamic port neither `held` (the keys of every
 * service's ports) nor this spec has.
 */
export function allocatePorts(ports: readonly PortConfig[], previous: readonly PortConfig[], held: ReadonlySet<string>, ranges: NodePortRanges): PortConfig[] {
  for (const port of ports) {
    const n = port.PublishedPort ?? 0;
    if (n !== 0 && !inRange(n, ranges.range)) throw invalidArgument(`published port ${n}/${port.Protocol} is outside the node port range ${formatPortRange(ranges.range)}`);
  }
  const taken = new Set([...held, ...ingressPortKeys(ports)]);
  const { dynamic } = ranges;
  return ports.map((port) => {
    if ((port.PublishedPort ?? 0) !== 0 || port.PublishMode !== 'ingress') return port;
    const kept = previous.find((q) => q.TargetPort === port.TargetPort && q.Protocol === port.Protocol && q.PublishMode === port.PublishMode && inRange(q.PublishedPort ?? 0, ranges.range));
    if (kept !== undefined && !ports.some((p) => p.PublishedPort === kept.PublishedPort && p.Protocol === kept.Protocol)) return { ...port, PublishedPort: kept.PublishedPort };
    for (let n = dynamic.start; n <= dynamic.end; n++) {
      const candidate = { ...port, PublishedPort: n };
      if (taken.has(portKey(candidate))) continue;
      taken.add(portKey(candidate));
      return candidate;
    }
    throw invalidArgument(`no available ${port.Protocol} port in the dynamic range ${formatPortRange(dynamic)}`);
  });
}

function inRange(n: number, range: PortRange): boolean {
  return n >= range.start && n <= range.end;
}

function invalidArgument(message: string): EngineError {
  return new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = ${message}`);
}

function inUse(p: PortConfig, service: ServiceRecord, as: string): EngineError {
  return invalidArgument(`port '${p.PublishedPort ?? 0}' is already in use by service '${service.spec.Name}' (${service.id}) as ${as}`);
}
