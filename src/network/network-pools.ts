// A new network's address pools, as dockerd makes them: the request's IPAM entries split by family
// when it is read (daemon getIpamConfig), then each family allocated in turn (libnetwork
// ipamAllocateVersion): the gateway checked, the pool requested, the gateway and the auxiliary
// addresses taken. IPv6 is allocated only with EnableIPv6, and without a subnet there is none.
import { EngineError } from '../errors.js';
import type { IpamConfigRequest } from './create-request.js';
import { IpNet, parseIp, formatIp, type IpFamily } from './ip-net.js';
import { allocateGateway, reserveAuxAddresses, type HeldPool, type Ipam } from './ipam.js';
import type { IpamPoolRecord } from './network-record.js';

export interface IpamEntry {
  request: IpamConfigRequest;
  subnet: IpNet;
}

/** The entries by family; a subnet that does not parse fails as daemon getIpamConfig does. */
export function splitIpamConfig(config: readonly IpamConfigRequest[]): Record<IpFamily, IpamEntry[]> {
  const out: Record<IpFamily, IpamEntry[]> = { 4: [], 6: [] };
  for (const request of config) {
    const subnet = IpNet.parse(request.subnet);
    if (subnet === undefined) throw new EngineError('system', `Invalid subnet ${request.subnet} : invalid CIDR address: ${request.subnet}`);
    out[subnet.family].push({ request, subnet });
  }
  return out;
}

export interface PoolContext {
  ipam: Ipam;
  /** the pools other networks hold */
  held: HeldPool[];
  /** the addresses taken in a subnet, by every network on it */
  usedIn(subnet: IpNet): Set<bigint>;
  networkName: string;
}

/** The pool records of a new network: IPv4 ones, then IPv6 ones (allocated only when enabled). */
export function allocatePools(entries: Record<IpFamily, IpamEntry[]>, enableIPv6: boolean, ctx: PoolContext): IpamPoolRecord[] {
  const held = [...ctx.held];
  const used = new Map<string, Set<bigint>>();
  const usedIn = (subnet: IpNet) => {
    const key = subnet.toString();
    if (!used.has(key)) used.set(key, new Set(ctx.usedIn(subnet)));
    return used.get(key) as Set<bigint>;
  };
  const allocate = (family: IpFamily): IpamPoolRecord[] => {
    const list: Array<IpamEntry | undefined> = entries[family].length > 0 ? entries[family] : [undefined];
    return list.map((entry) => {
      const request = entry?.request;
      const askedGateway = request?.gateway ? parseIp(request.gateway) : undefined;
      if (request?.gateway && askedGateway === undefined) throw new EngineError('system', `invalid gateway address ${request.gateway} in Ipam configuration`);
      const pool = ctx.ipam.requestPool(held, {
        family,
        subnet: entry && { net: entry.subnet, text: entry.request.subnet },
        ipRange: request?.ipRange || undefined,
      });
      held.push({ subnet: pool.subnet, ipRange: request?.ipRange || undefined });
      const taken = usedIn(pool.subnet);
      const gateway = allocateGateway(pool, taken, askedGateway, request?.gateway ?? '');
      taken.add(gateway.value);
      for (const ip of reserveAuxAddresses(pool, taken, request?.auxAddresses ?? {}, ctx.networkName)) taken.add(ip.value);
      return { subnet: pool.subnet.toString(), gateway: formatIp(gateway), ...(request && { requested: requested(request) }) };
    });
  };
  const v4 = allocate(4);
  const v6 = enableIPv6 ? allocate(6) : entries[6].map((e) => ({ subnet: e.subnet.toString(), requested: requested(e.request) }));
  return [...v4, ...v6];
}

/** An entry as written, without its empty fields. */
function requested(r: IpamConfigRequest): NonNullable<IpamPoolRecord['requested']> {
  return {
    subnet: r.subnet,
    ...(r.ipRange && { ipRange: r.ipRange }),
    ...(r.gateway && { gateway: r.gateway }),
    ...(r.auxAddresses && Object.keys(r.auxAddresses).length > 0 && { auxAddresses: r.auxAddresses }),
  };
}
