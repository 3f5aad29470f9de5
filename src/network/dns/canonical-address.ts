// One spelling per address, so that a map keyed by address finds an IPv6 address however it was
// written: the short form of RFC 5952, which is also how the kernel reports a datagram's source.
import { isIPv6 } from 'node:net';

export function canonicalAddress(address: string): string {
  // the WHATWG URL parser writes IPv6 hosts in exactly that form: lower case, longest zero run as ::
  return isIPv6(address) ? new URL(`http://[${address}]`).hostname.slice(1, -1) : address;
}
