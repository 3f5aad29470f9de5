// berth's IPAM, libnetwork's default allocator (ipam/allocator.go) without its datastore: pools are
// keyed by subnet and IP range, a new pool must not overlap a held one, default pools come from
// Docker's list in turn (the search starts after the last pool handed out, as dockerd 20.10's
// does), and addresses are the lowest free ones. What is held comes from the records each time,
// so nothing here needs saving. Pure apart from the host's networks, which are injected.
import { EngineError } from '../errors.js';
import { IpNet, parseIp, type IpAddress, type IpFamily } from './ip-net.js';

/** Docker's local default pools: 172.17–172.31 as /16s, then 192.168.0.0/16 as /20s (ipamutils). */
export const DEFAULT_POOLS: readonly IpNet[] = [
  ...Array.from({ length: 15 }, (_, i) => IpNet.parse(`172.${17 + i}.0.0/16`) as IpNet),
  ...Array.from({ length: 16 }, (_, i) => IpNet.parse(`192.168.${16 * i}.0/20`) as IpNet),
];

/** A pool some network holds: the allocator's key, the subnet and the IP range as written. */
export interface HeldPool {
  subnet: IpNet;
  ipRange?: string;
}

/** A pool handed out: where its addresses come from. */
export interface Pool {
  subnet: IpNet;
  /** the ordinals addresses are taken from when none is asked for: the IP range's, else the subnet's */
  range: { first: bigint; last: bigint };
}

export interface PoolRequest {
  family: IpFamily;
  /** the subnet asked for, parsed, and as written (dockerd's messages quote it so) */
  subnet?: { net: IpNet; text: string };
  ipRange?: string;
}

/** The networks the host already reaches directly, which a default pool must not overlap. */
export type HostNetworks = () => IpNet[];

export class Ipam {
  private readonly hostNetworks: HostNetworks;
  /** where the next search of the default pools starts (in memory, as dockerd's) */
  private nextDefault = 0;

  constructor(hostNetworks: HostNetworks) {
    this.hostNetworks = hostNetworks;
  }

  /** A pool for one IPAM config entry, or a default one when it names no subnet. */
  requestPool(held: readonly HeldPool[], req: PoolRequest): Pool {
    if (req.subnet === undefined) return this.defaultPool(held, req.family);
    const { net, text } = req.subnet;
    let range: IpNet | undefined;
    if (req.ipRange !== undefined) {
      range = IpNet.parse(req.ipRange);
      if (range === undefined) {
        throw system(`failed to parse pool request for address space "LocalDefault" pool "${text}" subpool "${req.ipRange}": Invalid Address SubPool`);
      }
    }
    const key = net.toString();
    // a sub-pool (an IP range) only clashes with the same key; a whole subnet with any held subnet it overlaps
    const clash = held.some((h) => h.subnet.toString() === key && (h.ipRange ?? '') === (req.ipRange ?? ''));
    if (clash || (range === undefined && held.some((h) => h.subnet.overlaps(net)))) throw poolOverlap();
    return poolOf(net, range);
  }

  private defaultPool(held: readonly HeldPool[], family: IpFamily): Pool {
    const taken = [...held];
    let hostNetworks: IpNet[] | undefined;
    for (;;) {
      const found = this.nextFree(taken, family);
      if (found === undefined) {
        throw new EngineError('notFound', `could not find an available, non-overlapping IPv${family} address pool among the defaults to assign to the network`);
      }
      hostNetworks ??= this.hostNetworks();
      if (!hostNetworks.some((h) => h.overlaps(found))) return poolOf(found);
      taken.push({ subnet: found }); // the host uses it: look further
    }
  }

  private nextFree(taken: readonly HeldPool[], family: IpFamily): IpNet | undefined {
    const n = DEFAULT_POOLS.length;
    for (let i = 0; i < n; i++) {
      const pool = DEFAULT_POOLS[(this.nextDefault + i) % n];
      if (pool.family !== family || taken.some((h) => h.subnet.overlaps(pool))) continue;
      const next = this.nextDefault + i + 1;
      this.nextDefault = next >= n ? 0 : next;
      return pool;
    }
    return undefined;
  }
}

/**
 * An address of the pool: the one asked for if it is in the subnet and free, else the lowest free
 * one of the pool's range. `used` holds every address taken in the subnet, by whichever network
 * shares it; the subnet's own address and IPv4's broadcast are never handed out.
 */
export function requestAddress(pool: Pool, used: ReadonlySet<bigint>, preferred?: IpAddress): IpAddress {
  const { subnet } = pool;
  const reserved = (value: bigint) => used.has(value) || value === subnet.network || (subnet.family === 4 && value === subnet.last);
  if (preferred !== undefined) {
    if (!subnet.contains(preferred)) throw system('Requested address is out of range');
    if (reserved(preferred.value)) throw new EngineError('forbidden', 'Address already in use');
    return preferred;
  }
  for (let ordinal = pool.range.first; ordinal <= pool.range.last; ordinal++) {
    const candidate = subnet.addressAt(ordinal);
    if (!reserved(candidate.value)) return candidate;
  }
  throw new PoolExhaustedError();
}

/** The pool's range has no address left. */
export class PoolExhaustedError extends EngineError {
  constructor() {
    super('system', 'No available addresses on this pool');
    this.name = 'PoolExhaustedError';
  }
}

/** A subnet's pool: addresses come from its IP range if it has one, in the range's ordinals as libnetwork computes them (its bits below the subnet's mask). */
export function poolOf(subnet: IpNet, ipRange?: IpNet): Pool {
  if (ipRange === undefined) return { subnet, range: { first: 0n, last: subnet.size - 1n } };
  return { subnet, range: { first: subnet.ordinalOf(ipRange.network), last: subnet.ordinalOf(ipRange.last) } };
}

/** The gateway of a new pool: the one asked for, else the pool's first free address. */
export function allocateGateway(pool: Pool, used: ReadonlySet<bigint>, asked: IpAddress | undefined, askedText: string): IpAddress {
  try {
    return requestAddress(pool, used, asked);
  } catch (err) {
    throw system(`failed to allocate gateway (${askedText}): ${(err as Error).message}`);
  }
}

/**
 * Auxiliary addresses, reserved in their order: each must parse and lie in the subnet; one the
 * pool's range leaves out is reserved all the same, as dockerd does. Returns the addresses taken.
 */
export function reserveAuxAddresses(pool: Pool, used: ReadonlySet<bigint>, aux: Readonly<Record<string, string>>, networkName: string): IpAddress[] {
  const taken = new Set(used);
  const out: IpAddress[] = [];
  for (const [key, text] of Object.entries(aux)) {
    const ip = parseIp(text);
    if (ip === undefined) throw system(`non parsable secondary ip address (${key}:${text}) passed for network ${networkName}`);
    if (!pool.subnet.contains(ip)) {
      throw new EngineError('forbidden', `auxiliary address: (${key}:${text}) must belong to the master pool: ${pool.subnet.toString()}`);
    }
    try {
      out.push(requestAddress(pool, taken, ip));
    } catch (err) {
      throw system(`failed to allocate secondary ip address (${key}:${text}): ${(err as Error).message}`);
    }
    taken.add(ip.value);
  }
  return out;
}

/** The MAC dockerd gives an endpoint: 02:42 and the four bytes of its IPv4 address (netutils.GenerateMACFromIP). */
export function macFromIpv4(ip: IpAddress): string {
  const bytes = [0x02n, 0x42n, ...[24n, 16n, 8n, 0n].map((shift) => (ip.value >> shift) & 0xffn)];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function poolOverlap(): EngineError {
  return new EngineError('forbidden', 'Pool overlaps with other one on this address space');
}

function system(message: string): EngineError {
  return new EngineError('system', message);
}
