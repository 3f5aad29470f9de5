// The parts of an SRV name as RFC 2782 spells it, `_service._proto.name`: for a swarm service the
// first label is the name of one of its published ports (EndpointSpec.Ports[].Name) and `name` is
// the service, maybe followed by a network. Any other shape is not a name of ours.

export type PortProtocol = 'tcp' | 'udp' | 'sctp';

export interface SrvName {
  portName: string;
  protocol: PortProtocol;
  /** What follows the two labels: `service` or `service.network`. */
  rest: string;
}

const SRV_NAME = /^_([^.]+)\._(tcp|udp|sctp)\.(.+)$/;

/** `name` is lower case, without the trailing dot. */
export function parseSrvName(name: string): SrvName | undefined {
  const match = SRV_NAME.exec(name);
  if (!match) return undefined;
  return { portName: match[1], protocol: match[2] as PortProtocol, rest: match[3] };
}
