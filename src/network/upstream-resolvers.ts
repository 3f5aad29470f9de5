// Where the embedded DNS server forwards a container's names that are not its networks': the
// container's own Dns servers, else the daemon's `dns` setting, else the host's resolv.conf (read
// again when it changes); none for a container whose networks are all internal (no way out).
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import type { Upstream } from './dns/upstream-forwarder.js';

export class UpstreamResolvers {
  private readonly bySource = new Map<string, Upstream[]>();
  private hostCache: { mtimeMs: number; upstreams: Upstream[] } | undefined;

  constructor(
    private readonly daemonDns: readonly string[],
    private readonly resolvConfPath = '/etc/resolv.conf',
  ) {}

  /** What a querier at `source` is forwarded to. */
  of(source: string): readonly Upstream[] {
    return this.bySource.get(source) ?? this.defaults();
  }

  /** A container's own choice, for each of its addresses (its Dns servers; [] for no way out). */
  set(addresses: readonly string[], upstreams: readonly string[]): void {
    for (const a of addresses) this.bySource.set(a, toUpstreams(upstreams));
  }

  forget(addresses: readonly string[]): void {
    for (const a of addresses) this.bySource.delete(a);
  }

  private defaults(): readonly Upstream[] {
    if (this.daemonDns.length > 0) return toUpstreams(this.daemonDns);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.resolvConfPath).mtimeMs;
    } catch {
      return [];
    }
    if (this.hostCache?.mtimeMs !== mtimeMs) {
      const servers = readFileSync(this.resolvConfPath, 'utf8')
        .split('\n')
        .map((l) => /^\s*nameserver\s+(\S+)/.exec(l)?.[1])
        .filter((a): a is string => a !== undefined && net.isIP(a) !== 0);
      this.hostCache = { mtimeMs, upstreams: toUpstreams(servers) };
    }
    return this.hostCache.upstreams;
  }
}

function toUpstreams(addresses: readonly string[]): Upstream[] {
  return addresses.map((address) => ({ address }));
}
