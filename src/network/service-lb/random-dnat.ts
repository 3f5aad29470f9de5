// One destination of several picked at random per connection, as kube-proxy's iptables mode does:
// rule i of n matches with probability 1/(n-i) of what reached it, so each destination gets 1/n,
// and the last takes whatever is left. The nat table sees only a connection's first packet, so the
// pick holds for the whole connection.

/**
 * The rules (their text after `-A CHAIN `) that DNAT to one of `destinations` (`ip`, or `ip:port`
 * with `protocol`, which a DNAT to a port needs).
 */
export function randomDnatRules(destinations: readonly string[], protocol?: string): string[] {
  const n = destinations.length;
  const match = protocol === undefined ? '' : `-p ${protocol} `;
  return destinations.map((to, i) =>
    i === n - 1 ? `${match}-j DNAT --to-destination ${to}` : `${match}-m statistic --mode random --probability ${probabilityText(1 / (n - i))} -j DNAT --to-destination ${to}`,
  );
}

/**
 * `p` as iptables-save prints it back (libxt_statistic stores round(p * 2^31) and prints it with
 * 11 decimals), so that rules read back compare equal to the ones made.
 */
export function probabilityText(p: number): string {
  return (Math.round(p * 0x80000000) / 0x80000000).toFixed(11);
}
