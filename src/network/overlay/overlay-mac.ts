// An endpoint's MAC address as libnetwork derives it from its IPv4 address (netutils.GenerateMACFromIP):
// 02:42 (locally administered, unicast) then the address's four bytes, so that every node knows a
// remote endpoint's MAC from its address alone and two endpoints of one network never share one.
import { parseIp } from '../ip-net.js';

export function macFromIp(endpointIp: string): string {
  const ip = parseIp(endpointIp);
  if (ip?.family !== 4) throw new Error(`not an IPv4 address: ${endpointIp}`);
  const bytes = [0x02, 0x42, ...[24n, 16n, 8n, 0n].map((shift) => Number((ip.value >> shift) & 0xffn))];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}
