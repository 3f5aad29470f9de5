// A container's interface counters for stats' `networks`, read from /proc/<pid>/net/dev, which
// shows the namespace of the process: its endpoints' interfaces, loopback left out as dockerd's
// sandbox statistics leave it.

/** One interface's counters, in dockerd's NetworkStats order. */
export interface NetworkCounters {
  rxBytes: bigint;
  rxPackets: bigint;
  rxErrors: bigint;
  rxDropped: bigint;
  txBytes: bigint;
  txPackets: bigint;
  txErrors: bigint;
  txDropped: bigint;
}

/** By interface; empty when only loopback is there. */
export function parseNetDev(text: string): Record<string, NetworkCounters> {
  const out: Record<string, NetworkCounters> = {};
  // two header lines, then `iface: rx bytes packets errs drop fifo frame compressed multicast tx bytes packets errs drop ...`
  for (const line of text.split('\n').slice(2)) {
    const at = line.indexOf(':');
    if (at < 0) continue;
    const name = line.slice(0, at).trim();
    if (name === 'lo') continue;
    const f = line.slice(at + 1).trim().split(/\s+/).map((v) => BigInt(v));
    out[name] = { rxBytes: f[0], rxPackets: f[1], rxErrors: f[2], rxDropped: f[3], txBytes: f[8], txPackets: f[9], txErrors: f[10], txDropped: f[11] };
  }
  return out;
}
