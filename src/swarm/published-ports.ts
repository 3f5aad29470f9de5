// The rules on an endpoint's PortConfigs, the step every PortConfig berth accepts goes through
// (swarm services will be the first to accept them): each port on its own (a known protocol, a
// target port, a name fit for DNS SRV), the ports of one record together (a target port once per
// protocol), and the published ports of all records (inside the node port range, never taken
// twice, 0 replaced by the next free port of the dynamic range).
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { PortConfig_Protocol, PortConfigSchema, type PortConfig } from '../generated/libnetwork/agent_pb.js';
import { DNS_LABEL_RULE, isDnsLabel } from '../lib/dns-label.js';
import { InvalidEndpointRecordError } from './endpoint-record-error.js';
import { formatPortRange, type NodePortRanges } from './node-port-ranges.js';

export type PortConfigInit = MessageInitShape<typeof PortConfigSchema>;

const PROTOCOL_NAMES: Record<PortConfig_Protocol, string> = {
  [PortConfig_Protocol.TCP]: 'tcp',
  [PortConfig_Protocol.UDP]: 'udp',
  [PortConfig_Protocol.SCTP]: 'sctp',
};

/** Checks the ports of one record by themselves; throws InvalidEndpointRecordError naming the port. */
export function checkPortConfigs(ports: readonly PortConfigInit[]): PortConfig[] {
  const configs = ports.map((p) => create(PortConfigSchema, p));
  const targets = new Set<string>();
  for (const port of configs) {
    const protocol = PROTOCOL_NAMES[port.protocol];
    if (protocol === undefined) throw new InvalidEndpointRecordError(`port ${port.targetPort}: unknown protocol ${port.protocol}`);
    if (!isPort(port.targetPort)) throw new InvalidEndpointRecordError(`target port ${port.targetPort}/${protocol} is not a port: want 1-65535`);
    if (port.publishedPort !== 0 && !isPort(port.publishedPort)) {
      throw new InvalidEndpointRecordError(`published port ${port.publishedPort}/${protocol} is not a port: want 1-65535`);
    }
    if (port.name !== '' && !isDnsLabel(port.name)) {
      throw new InvalidEndpointRecordError(
        `port name "${port.name}" of ${port.targetPort}/${protocol} is not a DNS label: use ${DNS_LABEL_RULE}`,
      );
    }
    const target = `${port.targetPort}/${protocol}`;
    if (targets.has(target)) throw new InvalidEndpointRecordError(`target port ${target} is given more than once`);
    targets.add(target);
  }
  return configs;
}

/**
 * The published ports in use on the node, per protocol, as swarm keeps them: a TCP and a UDP
 * port of the same number are two ports.
 */
export class PublishedPorts {
  private readonly taken = new Map<PortConfig_Protocol, Map<number, string>>();
  /** Where the search for the next dynamic port starts, per protocol: ports are handed out in order. */
  private readonly next = new Map<PortConfig_Protocol, number>();

  constructor(private readonly ranges: NodePortRanges) {}

  /**
   * Checks `ports` and takes their published ports for `owner`, all or none; a published port of
   * 0 becomes the next free port of the dynamic range. Returns the ports as taken.
   */
  admit(owner: string, ports: readonly PortConfigInit[]): PortConfig[] {
    const configs = checkPortConfigs(ports);
    const takenNow: PortConfig[] = [];
    try {
      // given ports first, so that a dynamic one never takes a port a later entry names
      for (const port of configs.filter((p) => p.publishedPort !== 0)) {
        this.takeGiven(owner, port);
        takenNow.push(port);
      }
      for (const port of configs.filter((p) => p.publishedPort === 0)) {
        port.publishedPort = this.takeDynamic(owner, port);
        takenNow.push(port);
      }
    } catch (err) {
      this.release(takenNow);
      throw err;
    }
    return configs;
  }

  /** Gives back the published ports of `ports`, as admit returned them. */
  release(ports: readonly PortConfig[]): void {
    for (const port of ports) this.taken.get(port.protocol)?.delete(port.publishedPort);
  }

  private takeGiven(owner: string, port: PortConfig): void {
    const { range } = this.ranges;
    const name = `${port.publishedPort}/${PROTOCOL_NAMES[port.protocol]}`;
    if (port.publishedPort < range.start || port.publishedPort > range.end) {
      throw new InvalidEndpointRecordError(`published port ${name} is outside the node port range ${formatPortRange(range)}`);
    }
    const holder = this.portsOf(port.protocol).get(port.publishedPort);
    if (holder !== undefined) {
      throw new InvalidEndpointRecordError(`published port ${name} is already in use by ${holder === owner ? 'another port of the same endpoint' : holder}`);
    }
    this.portsOf(port.protocol).set(port.publishedPort, owner);
  }

  private takeDynamic(owner: string, port: PortConfig): number {
    const { dynamic } = this.ranges;
    const taken = this.portsOf(port.protocol);
    const size = dynamic.end - dynamic.start + 1;
    const first = this.next.get(port.protocol) ?? dynamic.start;
    for (let i = 0; i < size; i++) {
      const candidate = dynamic.start + ((first - dynamic.start + i) % size);
      if (taken.has(candidate)) continue;
      taken.set(candidate, owner);
      this.next.set(port.protocol, candidate === dynamic.end ? dynamic.start : candidate + 1);
      return candidate;
    }
    throw new InvalidEndpointRecordError(
      `no published port is free in the dynamic node port range ${formatPortRange(dynamic)} for ${port.targetPort}/${PROTOCOL_NAMES[port.protocol]}`,
    );
  }

  private portsOf(protocol: PortConfig_Protocol): Map<number, string> {
    let ports = this.taken.get(protocol);
    if (ports === undefined) this.taken.set(protocol, (ports = new Map()));
    return ports;
  }
}

function isPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}
