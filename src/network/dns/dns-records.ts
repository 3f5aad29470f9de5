// What the embedded DNS server asks of the network area: the names a querier may resolve. The
// querier is known by its source address (a container's address on one of its networks) and sees
// the names of every network its container is attached to, nothing else, as Docker's resolver does.

/** Addresses of a name; the arrays are shared and must not be changed. */
export interface DnsAddresses {
  a: readonly string[];
  aaaa: readonly string[];
}

/** One SRV record's target: a host name, its port, and that host's IPv4 address (the A record sent beside it). */
export interface DnsServiceTarget {
  target: string;
  port: number;
  ipv4: string;
}

export interface DnsRecords {
  /** Changes whenever an answer may have changed (a network or endpoint added or removed): the server's replies are remembered until then. */
  readonly version: number;
  /** Addresses of `name` (lower case, no trailing dot) as the querier at `source` may see them; undefined when no network of the querier knows the name (then the query is forwarded). */
  lookup(source: string, name: string): DnsAddresses | undefined;
  /** The names of `address` for PTR, when the querier's networks hold it. */
  reverse(source: string, address: string): string[] | undefined;
  /** The targets of an SRV name (lower case, no trailing dot); an empty list for a name of ours that names none (NXDOMAIN); undefined for a name not ours (forwarded). */
  service(source: string, name: string): readonly DnsServiceTarget[] | undefined;
}
