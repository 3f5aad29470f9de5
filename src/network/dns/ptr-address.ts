// The address a PTR question is about: '4.3.2.1.in-addr.arpa' is 1.2.3.4, and the 32 nibbles
// before 'ip6.arpa' spell an IPv6 address backwards. Any other name (a partial zone, a typo) names
// no address of ours, and the query goes upstream as Docker sends it.
import { canonicalAddress } from './canonical-address.js';

const IPV4_SUFFIX = '.in-addr.arpa';
const IPV6_SUFFIX = '.ip6.arpa';
const OCTET = /^(?:0|[1-9]\d{0,2})$/;
const NIBBLE = /^[0-9a-f]$/;

/** `name` is lower case, without the trailing dot. */
export function ptrAddress(name: string): string | undefined {
  if (name.endsWith(IPV4_SUFFIX)) {
    const octets = name.slice(0, -IPV4_SUFFIX.length).split('.');
    if (octets.length !== 4 || !octets.every((o) => OCTET.test(o) && Number(o) < 256)) return undefined;
    return octets.reverse().join('.');
  }
  if (name.endsWith(IPV6_SUFFIX)) {
    const nibbles = name.slice(0, -IPV6_SUFFIX.length).split('.');
    if (nibbles.length !== 32 || !nibbles.every((n) => NIBBLE.test(n))) return undefined;
    const hex = nibbles.reverse().join('');
    const groups = Array.from({ length: 8 }, (_, i) => hex.slice(i * 4, i * 4 + 4));
    return canonicalAddress(groups.join(':'));
  }
  return undefined;
}
