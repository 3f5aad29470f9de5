// A container's counters from its cgroup v2 directory, as dockerd 20.10's statsV2 reports them:
// no per-CPU usage and no maximum usage; failcnt is memory.events' oom; io only as bytes read
// and written; an unset limit ("max") is the largest uint64 (the memory one is then capped by
// the machine's memory, as on v1).
import path from 'node:path';
import type { ContainerCgroup } from './container-cgroup.js';
import { readCounter, readKeyValues, readOptional, readV2Limit, type BlkioEntry, type CgroupSample } from './cgroup-sample.js';

/** The memory.stat entries dockerd 20.10 reports on cgroup v2. */
const MEMORY_STAT_KEYS = [
  'anon', 'file', 'kernel_stack', 'slab', 'sock', 'shmem', 'file_mapped', 'file_dirty', 'file_writeback', 'anon_thp',
  'inactive_anon', 'active_anon', 'inactive_file', 'active_file', 'unevictable', 'slab_reclaimable', 'slab_unreclaimable',
  'pgfault', 'pgmajfault', 'workingset_refault', 'workingset_activate', 'workingset_nodereclaim', 'pgrefill', 'pgscan',
  'pgsteal', 'pgactivate', 'pgdeactivate', 'pglazyfree', 'pglazyfreed', 'thp_fault_alloc', 'thp_collapse_alloc',
];

export function readCgroupV2Sample(cg: ContainerCgroup): CgroupSample {
  const dir = cg.dir('');
  const cpu = readKeyValues(path.join(dir, 'cpu.stat'));
  const memStat = readKeyValues(path.join(dir, 'memory.stat'));
  const stats: Record<string, bigint> = {};
  for (const key of MEMORY_STAT_KEYS) stats[key] = memStat.get(key) ?? 0n;
  const serviceBytes = parseIoStat(readOptional(path.join(dir, 'io.stat')));
  return {
    cpu: {
      totalNs: (cpu.get('usage_usec') ?? 0n) * 1000n,
      kernelNs: (cpu.get('system_usec') ?? 0n) * 1000n,
      userNs: (cpu.get('user_usec') ?? 0n) * 1000n,
      throttling: {
        periods: cpu.get('nr_periods') ?? 0n,
        throttledPeriods: cpu.get('nr_throttled') ?? 0n,
        throttledTimeNs: (cpu.get('throttled_usec') ?? 0n) * 1000n,
      },
    },
    memory: {
      usage: readCounter(path.join(dir, 'memory.current')),
      failcnt: readKeyValues(path.join(dir, 'memory.events')).get('oom') ?? 0n,
      limit: readV2Limit(path.join(dir, 'memory.max')),
      stats,
    },
    pids: { current: readCounter(path.join(dir, 'pids.current')), limit: readV2Limit(path.join(dir, 'pids.max')) },
    blkio: serviceBytes.length > 0 ? { ioServiceBytesRecursive: serviceBytes } : {},
  };
}

/** io.stat's "8:0 rbytes=1 wbytes=2 ..." lines as dockerd's read and write entries. */
export function parseIoStat(text: string): BlkioEntry[] {
  const out: BlkioEntry[] = [];
  for (const line of text.split('\n')) {
    const [device, ...pairs] = line.trim().split(/\s+/);
    const m = /^(\d+):(\d+)$/.exec(device ?? '');
    if (!m) continue;
    const values = new Map(pairs.map((p) => p.split('=') as [string, string]));
    const major = Number(m[1]);
    const minor = Number(m[2]);
    out.push({ major, minor, op: 'read', value: BigInt(values.get('rbytes') ?? '0') }, { major, minor, op: 'write', value: BigInt(values.get('wbytes') ?? '0') });
  }
  return out;
}
