// The node port range: where a swarm service's published ports may lie, and the part of it that
// ports are handed out from when a PortConfig leaves published_port at 0. Docker's swarm fixes
// both (1-65535 and 30000-32767); in berth they are daemon settings with those defaults.

export interface PortRange {
  start: number;
  end: number;
}

export interface NodePortRanges {
  /** Any published port given must lie here. */
  range: PortRange;
  /** Published port 0 is allocated from here; always inside `range`. */
  dynamic: PortRange;
}

export const DEFAULT_NODE_PORT_RANGE = '1-65535';
export const DEFAULT_DYNAMIC_NODE_PORT_RANGE = '30000-32767';

/** Reads `START-END` (or a single port) as written in a flag or daemon.json. */
export function parsePortRange(text: string, setting: string): PortRange {
  const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text.trim());
  const start = match ? Number(match[1]) : NaN;
  const end = match ? Number(match[2] ?? match[1]) : NaN;
  if (!(start >= 1 && end <= 65535 && start <= end)) {
    throw new Error(`invalid ${setting} "${text}": want START-END, with 1 <= START <= END <= 65535`);
  }
  return { start, end };
}

/** Both settings, checked together: the dynamic range must lie inside the node port range. */
export function parseNodePortRanges(range: string, dynamic: string): NodePortRanges {
  const ranges = { range: parsePortRange(range, 'node-port-range'), dynamic: parsePortRange(dynamic, 'dynamic-node-port-range') };
  if (ranges.dynamic.start < ranges.range.start || ranges.dynamic.end > ranges.range.end) {
    throw new Error(`dynamic-node-port-range ${formatPortRange(ranges.dynamic)} must lie inside node-port-range ${formatPortRange(ranges.range)}`);
  }
  return ranges;
}

export function formatPortRange(range: PortRange): string {
  return `${range.start}-${range.end}`;
}
