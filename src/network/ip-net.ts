// IPv4 and IPv6 addresses and prefixes as Go's net package reads and prints them (ParseIP,
// ParseCIDR, IP.String, IPNet.String), held as bigints so that both families share one arithmetic.
import { isIP } from 'node:net';

export type IpFamily = 4 | 6;

export interface IpAddress {
  family: IpFamily;
  value: bigint;
}

const BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };

/** Go's net.ParseIP: a dotted IPv4 address (no leading zeros) or an IPv6 one (no zone); undefined otherwise. */
export function parseIp(text: string): IpAddress | undefined {
  const family = isIP(text);
  if (family === 4) return { family: 4, value: parseIpv4(text) };
  if (family === 6 && !text.includes('%')) return { family: 6, value: parseIpv6(text) };
  return undefined;
}

export function formatIp(ip: IpAddress): string {
  return ip.family === 4 ? formatIpv4(ip.value) : formatIpv6(ip.value);
}

/** A prefix as Go's net.IPNet: the address as written, its prefix length, and the network it names. */
export class IpNet {
  readonly family: IpFamily;
  /** the address as written before the slash (10.11.0.5 in 10.11.0.5/16) */
  readonly address: bigint;
  readonly prefixLength: number;
  /** the first address of the prefix */
  readonly network: bigint;

  constructor(ip: IpAddress, prefixLength: number) {
    this.family = ip.family;
    this.address = ip.value;
    this.prefixLength = prefixLength;
    this.network = ip.value & this.mask;
  }

  /** Go's net.ParseCIDR; undefined for anything it refuses. */
  static parse(text: string): IpNet | undefined {
    const slash = text.indexOf('/');
    if (slash < 0) return undefined;
    const ip = parseIp(text.slice(0, slash));
    const length = text.slice(slash + 1);
    if (ip === undefined || !/^\d+$/.test(length) || Number(length) > BITS[ip.family]) return undefined;
    return new IpNet(ip, Number(length));
  }

  get bits(): number {
    return BITS[this.family];
  }

  get mask(): bigint {
    const all = (1n << BigInt(this.bits)) - 1n;
    return all ^ ((1n << BigInt(this.bits - this.prefixLength)) - 1n);
  }

  /** How many addresses the prefix holds. */
  get size(): bigint {
    return 1n << BigInt(this.bits - this.prefixLength);
  }

  /** The last address of the prefix (IPv4's broadcast). */
  get last(): bigint {
    return this.network + this.size - 1n;
  }

  contains(ip: IpAddress): boolean {
    return ip.family === this.family && (ip.value & this.mask) === this.network;
  }

  /** As Go's netutils.NetworkOverlaps: either prefix holds the other's first address. */
  overlaps(other: IpNet): boolean {
    return this.contains(other.firstAddress()) || other.contains(this.firstAddress());
  }

  /** The address's place in the prefix: its bits below the mask. */
  ordinalOf(value: bigint): bigint {
    return value & ~this.mask & ((1n << BigInt(this.bits)) - 1n);
  }

  addressAt(ordinal: bigint): IpAddress {
    return { family: this.family, value: this.network | ordinal };
  }

  firstAddress(): IpAddress {
    return { family: this.family, value: this.network };
  }

  /** The canonical form, as Go's IPNet.String: 10.11.0.0/16. */
  toString(): string {
    return `${formatIp(this.firstAddress())}/${this.prefixLength}`;
  }

  /** An address of this prefix with its length, as libnetwork prints an interface's address: 10.11.0.2/16. */
  withPrefix(ip: IpAddress): string {
    return `${formatIp(ip)}/${this.prefixLength}`;
  }
}

function parseIpv4(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(part), 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function parseIpv6(text: string): bigint {
  let groups: string[];
  const tail = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (tail) {
    const v4 = parseIpv4(tail[1]);
    text = `${text.slice(0, -tail[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  if (rest === undefined) {
    groups = head.split(':');
  } else {
    const left = head === '' ? [] : head.split(':');
    const right = rest === '' ? [] : rest.split(':');
    groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
}

/** RFC 5952, as Go prints IPv6: the longest run of two or more zero groups (the first of equals) becomes "::". */
function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
