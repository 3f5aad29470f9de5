// Where an overlay network's pieces are on a node, named as libnetwork's overlay driver names them
// so that `ip link` reads the same: the network's namespace `1-<first 10 of its ID>` (osl.GenerateKey
// of "1-" + nid), its bridge `br0`, its VXLAN device `vx-<VNI, 6 hex digits>-<first 5 of its ID>`.
// A container's veth end in that namespace is named after the endpoint's address, which is unique
// in a network, so that detaching needs the address only. Names fit IFNAMSIZ (15 characters).
import { parseIp } from '../ip-net.js';

export const OVERLAY_BRIDGE = 'br0';

export function sandboxName(nid: string): string {
  return `1-${nid.slice(0, 10)}`;
}

export function vxlanName(vni: number, nid: string): string {
  return `vx-${vni.toString(16).padStart(6, '0')}-${nid.slice(0, 5)}`;
}

/** `ve-0a000102` for 10.0.1.2. */
export function vethName(endpointIp: string): string {
  const ip = parseIp(endpointIp);
  if (ip?.family !== 4) throw new Error(`not an IPv4 address: ${endpointIp}`);
  return `ve-${ip.value.toString(16).padStart(8, '0')}`;
}
