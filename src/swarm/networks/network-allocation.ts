// What the managers' allocator gives a swarm network, as swarmkit's cnmallocator does: each IPAM
// entry checked in swarmkit's words (validateIPAMConfiguration) and its subnet held, or without
// entries a subnet of the swarm's default address pool (DefaultAddrPool, 10.0.0.0/8 in /24s,
// SubnetSize); the gateway the entry names or the subnet's first address; a VXLAN ID from 4096.
// The first default subnet and VXLAN ID 4096 stay for the ingress network, as dockerd's init makes
// it first (it comes with overlay networks, part three). Where swarmkit hands out subnets and IDs
// after the last ones given, berth takes the lowest free ones.
import { EngineError } from '../../errors.js';
import { formatIp, IpNet, parseIp } from '../../network/ip-net.js';

export interface IpamEntry {
  subnet: string;
  ipRange: string;
  gateway: string;
}

export interface AllocatedPool {
  /** canonical */
  subnet: string;
  gateway: string;
  ipRange?: string;
}

const DEFAULT_ADDR_POOL = ['10.0.0.0/8'];
const DEFAULT_SUBNET_SIZE = 24;
const FIRST_VXLAN_ID = 4096;

function invalidArgument(message: string): EngineError {
  return new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = ${message}`);
}

/** swarmkit's checks of an IPAM entry, before anything is allocated. */
export function checkIpamEntries(entries: readonly IpamEntry[]): void {
  for (const e of entries) {
    const subnet = IpNet.parse(e.subnet);
    if (subnet === undefined) throw invalidArgument(`ipam configuration: invalid subnet ${e.subnet}`);
    if (e.ipRange !== '') {
      const range = IpNet.parse(e.ipRange);
      if (range === undefined) throw invalidArgument(`ipam configuration: invalid range ${e.ipRange}`);
      if (!subnet.contains({ family: range.family, value: range.address })) throw invalidArgument(`ipam configuration: subnet ${e.subnet} does not contain range ${e.ipRange}`);
    }
    if (e.gateway !== '') {
      const gateway = parseIp(e.gateway);
      if (gateway === undefined) throw invalidArgument(`ipam configuration: invalid gateway ${e.gateway}`);
      if (!subnet.contains(gateway)) throw invalidArgument(`ipam configuration: subnet ${e.subnet} does not contain gateway ${e.gateway}`);
    }
  }
}

/**
 * The pools of a new network, given the subnets the swarm's networks hold. An entry whose subnet
 * overlaps one held is refused (swarmkit's allocator fails such a network after making it, which
 * then shows no driver; berth refuses it at once, in the allocator's words).
 */
export function allocatePools(entries: readonly IpamEntry[], held: readonly IpNet[], addrPool: { defaultAddrPool: readonly string[] | null; subnetSize: number }, ingress = false): AllocatedPool[] {
  if (entries.length === 0) {
    const subnet = defaultSubnet(held, addrPool.defaultAddrPool ?? DEFAULT_ADDR_POOL, addrPool.subnetSize || DEFAULT_SUBNET_SIZE, ingress);
    return [{ subnet: subnet.toString(), gateway: formatIp(subnet.addressAt(1n)) }];
  }
  const taken = [...held];
  return entries.map((e) => {
    const subnet = IpNet.parse(e.subnet)!;
    if (taken.some((h) => h.overlaps(subnet))) throw new EngineError('forbidden', 'Pool overlaps with other one on this address space');
    taken.push(subnet);
    return { subnet: subnet.toString(), gateway: e.gateway !== '' ? e.gateway : formatIp(subnet.addressAt(1n)), ...(e.ipRange !== '' ? { ipRange: e.ipRange } : {}) };
  });
}

/** The lowest VXLAN ID no network holds, after the ingress network's (which has the first). */
export function allocateVxlanId(held: readonly number[], ingress = false): number {
  let id = ingress ? FIRST_VXLAN_ID : FIRST_VXLAN_ID + 1;
  while (held.includes(id)) id++;
  return id;
}

function defaultSubnet(held: readonly IpNet[], pools: readonly string[], size: number, ingress: boolean): IpNet {
  for (const [i, text] of pools.entries()) {
    const pool = IpNet.parse(text);
    if (pool === undefined || pool.family !== 4 || size < pool.prefixLength || size > pool.bits) continue;
    const step = 1n << BigInt(pool.bits - size);
    // the ingress network's, the first of the first pool
    for (let at = i === 0 && !ingress ? pool.network + step : pool.network; at <= pool.last; at += step) {
      const candidate = new IpNet({ family: 4, value: at }, size);
      if (!held.some((h) => h.overlaps(candidate))) return candidate;
    }
  }
  throw new EngineError('system', 'could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network');
}
