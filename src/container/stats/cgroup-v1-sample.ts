// A container's counters from cgroup v1 files, as containerd's cgroups v1 metrics and dockerd
// 20.10's statsV1 report them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ContainerCgroup } from './container-cgroup.js';
import { readCounter, readKeyValues, readOptional, BLKIO_KEYS, type BlkioEntry, type BlkioKey, type CgroupSample } from './cgroup-sample.js';

/** cpuacct.stat counts USER_HZ ticks (100 a second on Linux). */
const NS_PER_TICK = 10_000_000n;

/** The memory.stat entries dockerd 20.10 reports on cgroup v1 (0 when the kernel has no such line). */
const MEMORY_STAT_KEYS = [
  'cache', 'rss', 'rss_huge', 'mapped_file', 'dirty', 'writeback', 'pgpgin', 'pgpgout', 'pgfault', 'pgmajfault',
  'inactive_anon', 'active_anon', 'inactive_file', 'active_file', 'unevictable',
  'hierarchical_memory_limit', 'hierarchical_memsw_limit',
  'total_cache', 'total_rss', 'total_rss_huge', 'total_mapped_file', 'total_dirty', 'total_writeback', 'total_pgpgin',
  'total_pgpgout', 'total_pgfault', 'total_pgmajfault', 'total_inactive_anon', 'total_active_anon', 'total_inactive_file',
  'total_active_file', 'total_unevictable',
];

/** Which blkio files fill which list: CFQ's when the kernel keeps them, else the throttle ones (containerd's choice). */
const CFQ_FILES: Array<[BlkioKey, string]> = [
  ['sectorsRecursive', 'blkio.sectors_recursive'],
  ['ioServiceBytesRecursive', 'blkio.io_service_bytes_recursive'],
  ['ioServicedRecursive', 'blkio.io_serviced_recursive'],
  ['ioQueueRecursive', 'blkio.io_queued_recursive'],
  ['ioServiceTimeRecursive', 'blkio.io_service_time_recursive'],
  ['ioWaitTimeRecursive', 'blkio.io_wait_time_recursive'],
  ['ioMergedRecursive', 'blkio.io_merged_recursive'],
  ['ioTimeRecursive', 'blkio.time_recursive'],
];
const THROTTLE_FILES: Array<[BlkioKey, string]> = [
  ['ioServicedRecursive', 'blkio.throttle.io_serviced_recursive'],
  ['ioServiceBytesRecursive', 'blkio.throttle.io_service_bytes_recursive'],
];

export function readCgroupV1Sample(cg: ContainerCgroup): CgroupSample {
  const cpuacct = cg.dir('cpuacct');
  const memory = cg.dir('memory');
  const cpuStat = readKeyValues(path.join(cg.dir('cpu'), 'cpu.stat'));
  const ticks = readKeyValues(path.join(cpuacct, 'cpuacct.stat'));
  const memStat = readKeyValues(path.join(memory, 'memory.stat'));
  const stats: Record<string, bigint> = {};
  for (const key of MEMORY_STAT_KEYS) stats[key] = memStat.get(key) ?? 0n;
  return {
    cpu: {
      totalNs: readCounter(path.join(cpuacct, 'cpuacct.usage')),
      perCpuNs: readOptional(path.join(cpuacct, 'cpuacct.usage_percpu')).trim().split(/\s+/).filter((v) => v !== '').map(BigInt),
      kernelNs: (ticks.get('system') ?? 0n) * NS_PER_TICK,
      userNs: (ticks.get('user') ?? 0n) * NS_PER_TICK,
      throttling: {
        periods: cpuStat.get('nr_periods') ?? 0n,
        throttledPeriods: cpuStat.get('nr_throttled') ?? 0n,
        throttledTimeNs: cpuStat.get('throttled_time') ?? 0n,
      },
    },
    memory: {
      usage: readCounter(path.join(memory, 'memory.usage_in_bytes')),
      maxUsage: readCounter(path.join(memory, 'memory.max_usage_in_bytes')),
      failcnt: readCounter(path.join(memory, 'memory.failcnt')),
      limit: readCounter(path.join(memory, 'memory.limit_in_bytes')),
      stats,
    },
    pids: { current: readCounter(path.join(cg.dir('pids'), 'pids.current')), limit: readCounter(path.join(cg.dir('pids'), 'pids.max')) },
    blkio: readBlkio(cg.dir('blkio')),
  };
}

function readBlkio(dir: string): CgroupSample['blkio'] {
  const files = existsSync(path.join(dir, 'blkio.io_serviced_recursive')) ? CFQ_FILES : THROTTLE_FILES;
  // dockerd's v1 lists are never null, only empty
  const out: CgroupSample['blkio'] = Object.fromEntries(BLKIO_KEYS.map((k) => [k, []]));
  for (const [key, file] of files) out[key] = parseBlkioFile(readOptional(path.join(dir, file)));
  return out;
}

/** "8:0 Read 4096" (or "8:0 4096" for sectors) lines; the "Total" line has no device and is skipped. */
export function parseBlkioFile(text: string): BlkioEntry[] {
  const out: BlkioEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const device = /^(\d+):(\d+)$/.exec(fields[0] ?? '');
    if (!device || fields.length < 2) continue;
    const value = fields[fields.length - 1];
    if (!/^\d+$/.test(value)) continue;
    out.push({ major: Number(device[1]), minor: Number(device[2]), op: fields.length > 2 ? fields[1] : '', value: BigInt(value) });
  }
  return out;
}
