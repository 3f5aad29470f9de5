// One reading of a container's cgroup counters, in the units dockerd reports (bytes, nanoseconds).
// Counters are bigints: memory limits (9223372036854771712 when unlimited) and CPU nanoseconds go
// past 2^53.
import { readFileSync } from 'node:fs';

export interface BlkioEntry {
  major: number;
  minor: number;
  op: string;
  value: bigint;
}

export const BLKIO_KEYS = [
  'ioServiceBytesRecursive',
  'ioServicedRecursive',
  'ioQueueRecursive',
  'ioServiceTimeRecursive',
  'ioWaitTimeRecursive',
  'ioMergedRecursive',
  'ioTimeRecursive',
  'sectorsRecursive',
] as const;

export type BlkioKey = (typeof BLKIO_KEYS)[number];

export interface CgroupSample {
  cpu: {
    totalNs: bigint;
    /** cgroup v1 only */
    perCpuNs?: bigint[];
    kernelNs: bigint;
    userNs: bigint;
    throttling: { periods: bigint; throttledPeriods: bigint; throttledTimeNs: bigint };
  };
  memory: {
    usage: bigint;
    /** cgroup v1 only */
    maxUsage?: bigint;
    failcnt: bigint;
    limit: bigint;
    /** memory.stat's entries dockerd reports */
    stats: Record<string, bigint>;
  };
  /** limit 0: none */
  pids: { current: bigint; limit: bigint };
  /** v2 fills only ioServiceBytesRecursive, as dockerd */
  blkio: Partial<Record<BlkioKey, BlkioEntry[]>>;
}

/** A file's text; '' when it is missing (a controller or file this kernel lacks). */
export function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** A single number in a file; "max" and a missing file are 0 (no limit, or not kept). */
export function readCounter(file: string): bigint {
  const text = readOptional(file).trim();
  return /^\d+$/.test(text) ? BigInt(text) : 0n;
}

const MAX_UINT64 = 2n ** 64n - 1n;

/** A v2 limit file: "max" is no limit, which containerd (and so dockerd) reports as the largest uint64. */
export function readV2Limit(file: string): bigint {
  return readOptional(file).trim() === 'max' ? MAX_UINT64 : readCounter(file);
}

/** "key value" lines (memory.stat, cpu.stat, cpuacct.stat). */
export function readKeyValues(file: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const line of readOptional(file).split('\n')) {
    const [key, value] = line.split(' ');
    if (key && value !== undefined && /^\d+$/.test(value)) out.set(key, BigInt(value));
  }
  return out;
}
