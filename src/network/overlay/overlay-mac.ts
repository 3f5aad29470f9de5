// An endpoint's MAC address as libnetwork derives it from its IPv4 address (netutils.GenerateMACFromIP),
// the IPAM's derivation for an address written as text: every node knows a remote endpoint's MAC
// from its address alone, and two endpoints of one network never share one.
import { parseIp } from '../ip-net.js';
import { macFromIpv4 } from '../ipam.js';

export function macFromIp(endpointIp: string): string {
  const ip = parseIp(endpointIp);
  if (ip?.family !== 4) throw new Error(`not an IPv4 address: ${endpointIp}`);
  return macFromIpv4(ip);
}
