// A stats frame in dockerd 20.10's wire shape (types.StatsJSON), field for field and in its order,
// with Go's omitempty: a stopped container's frame has zero times and empty parts, and `networks`
// is there only for a container with interfaces of its own.
import type { StatsFrame, StatsSample } from '../../../container/stats/container-stats.js';
import type { BlkioKey } from '../../../container/stats/cgroup-sample.js';
import { formatRfc3339Nano } from '../../../lib/timestamp.js';
import { stringifyWithBigInts } from '../../../lib/json-bigint.js';

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** In dockerd's order. */
const BLKIO_NAMES: Record<BlkioKey, string> = {
  ioServiceBytesRecursive: 'io_service_bytes_recursive',
  ioServicedRecursive: 'io_serviced_recursive',
  ioQueueRecursive: 'io_queue_recursive',
  ioServiceTimeRecursive: 'io_service_time_recursive',
  ioWaitTimeRecursive: 'io_wait_time_recursive',
  ioMergedRecursive: 'io_merged_recursive',
  ioTimeRecursive: 'io_time_recursive',
  sectorsRecursive: 'sectors_recursive',
};

/** One line of the answer (without its newline). */
export function encodeStatsJson(frame: StatsFrame, container: { name: string; id: string }): string {
  const s = frame.read;
  const blkio = s?.cgroup.blkio ?? {};
  return stringifyWithBigInts({
    read: s ? formatRfc3339Nano(s.readNs) : ZERO_TIME,
    preread: frame.pre ? formatRfc3339Nano(frame.pre.readNs) : ZERO_TIME,
    pids_stats: s ? omitZero({ current: s.cgroup.pids.current, limit: s.cgroup.pids.limit }) : {},
    blkio_stats: Object.fromEntries(
      (Object.keys(BLKIO_NAMES) as BlkioKey[]).map((k) => [BLKIO_NAMES[k], blkio[k]?.map((e) => ({ major: e.major, minor: e.minor, op: e.op, value: e.value })) ?? null]),
    ),
    num_procs: 0,
    storage_stats: {},
    cpu_stats: cpuStats(s),
    precpu_stats: cpuStats(frame.pre),
    memory_stats: s ? memoryStats(s) : {},
    name: container.name,
    id: container.id,
    ...(s?.networks && Object.keys(s.networks).length > 0 ? { networks: networkStats(s.networks) } : {}),
  });
}

function cpuStats(s: StatsSample | undefined) {
  const cpu = s?.cgroup.cpu;
  const perCpu = cpu?.perCpuNs ?? [];
  return {
    cpu_usage: {
      total_usage: cpu?.totalNs ?? 0n,
      ...(perCpu.length > 0 ? { percpu_usage: perCpu } : {}),
      usage_in_kernelmode: cpu?.kernelNs ?? 0n,
      usage_in_usermode: cpu?.userNs ?? 0n,
    },
    ...(s && s.host.systemCpuNs > 0n ? { system_cpu_usage: s.host.systemCpuNs } : {}),
    ...(s && s.host.onlineCpus > 0 ? { online_cpus: s.host.onlineCpus } : {}),
    throttling_data: {
      periods: cpu?.throttling.periods ?? 0n,
      throttled_periods: cpu?.throttling.throttledPeriods ?? 0n,
      throttled_time: cpu?.throttling.throttledTimeNs ?? 0n,
    },
  };
}

function networkStats(networks: NonNullable<StatsSample['networks']>) {
  return Object.fromEntries(
    Object.entries(networks).map(([name, n]) => [
      name,
      { rx_bytes: n.rxBytes, rx_packets: n.rxPackets, rx_errors: n.rxErrors, rx_dropped: n.rxDropped, tx_bytes: n.txBytes, tx_packets: n.txPackets, tx_errors: n.txErrors, tx_dropped: n.txDropped },
    ]),
  );
}

function memoryStats(s: StatsSample) {
  const m = s.cgroup.memory;
  // Go writes a map's keys sorted
  const stats = Object.fromEntries(Object.entries(m.stats).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return omitZero({ usage: m.usage, max_usage: m.maxUsage ?? 0n, stats, failcnt: m.failcnt, limit: m.limit });
}

/** Go's omitempty for counters: a zero is left out. */
function omitZero<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0n)) as Partial<T>;
}
