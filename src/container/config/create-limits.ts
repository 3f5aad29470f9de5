// What this machine can grant a container, read once by the daemon: cgroup controls (as dockerd's
// sysinfo), the daemon's own hard rlimits, and whether it may raise them (CAP_SYS_RESOURCE).
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { readCgroupFacts, type CgroupFacts } from '../../system/cgroup-facts.js';
import type { LogConfig } from './types.js';

export interface CreateLimits {
  cgroup: CgroupFacts;
  /** the daemon's log driver and options (log-driver, log-opts), for containers that name none */
  logConfig: Required<LogConfig>;
  /** Controls dockerd's sysinfo knows that CgroupFacts does not carry. */
  memoryReservation: boolean;
  memorySwappiness: boolean;
  cpuRealtime: boolean;
  cgroupNamespaces: boolean;
  /** The CPUs and memory nodes the root cpuset offers, as "0-1". */
  cpusetCpus: string;
  cpusetMems: string;
  /** Hard limits of the daemon process by Docker ulimit name; Infinity when unlimited. */
  rlimitHard: Record<string, number>;
  cpuCount: number;
  /** Whether the daemon may raise hard limits (CAP_SYS_RESOURCE in its effective set). */
  hasCapSysResource: boolean;
}

const CGROUP_ROOT = '/sys/fs/cgroup';
const CAP_SYS_RESOURCE = 24n;

/** /proc/self/limits row titles by Docker ulimit name. */
const limitRows: Record<string, string> = {
  cpu: 'Max cpu time',
  fsize: 'Max file size',
  data: 'Max data size',
  stack: 'Max stack size',
  core: 'Max core file size',
  rss: 'Max resident set',
  nproc: 'Max processes',
  nofile: 'Max open files',
  memlock: 'Max locked memory',
  as: 'Max address space',
  locks: 'Max file locks',
  sigpending: 'Max pending signals',
  msgqueue: 'Max msgqueue size',
  nice: 'Max nice priority',
  rtprio: 'Max realtime priority',
  rttime: 'Max realtime timeout',
};

/** What this host and daemon let a create ask for; `logConfig` is the daemon's default log driver and options. */
export function daemonCreateLimits(logConfig: Required<LogConfig>): CreateLimits {
  const cgroup = readCgroupFacts(CGROUP_ROOT);
  const v1 = cgroup.version === '1';
  const has = (file: string) => existsSync(`${CGROUP_ROOT}/${file}`);
  return {
    cgroup,
    logConfig,
    memoryReservation: v1 ? has('memory/memory.soft_limit_in_bytes') : cgroup.memoryLimit,
    memorySwappiness: v1 && has('memory/memory.swappiness'),
    cpuRealtime: v1 && has('cpu/cpu.rt_period_us') && has('cpu/cpu.rt_runtime_us'),
    cgroupNamespaces: existsSync('/proc/self/ns/cgroup'),
    cpusetCpus: readTrimmed(v1 ? 'cpuset/cpuset.cpus' : 'cpuset.cpus.effective'),
    cpusetMems: readTrimmed(v1 ? 'cpuset/cpuset.mems' : 'cpuset.mems.effective'),
    rlimitHard: parseLimits(readFileSync('/proc/self/limits', 'utf8')),
    cpuCount: availableParallelism(),
    hasCapSysResource: hasEffectiveCap(readFileSync('/proc/self/status', 'utf8'), CAP_SYS_RESOURCE),
  };
}

function readTrimmed(file: string): string {
  try {
    return readFileSync(`${CGROUP_ROOT}/${file}`, 'utf8').trim();
  } catch {
    return ''; // no cpuset controller: nothing can be asked for
  }
}

/** Hard limits from the text of /proc/<pid>/limits. */
export function parseLimits(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, title] of Object.entries(limitRows)) {
    const line = text.split('\n').find((l) => l.startsWith(title));
    if (!line) continue;
    const hard = line.slice(title.length).trim().split(/\s+/)[1];
    out[name] = hard === 'unlimited' ? Infinity : Number(hard);
  }
  return out;
}

/** Whether capability bit `cap` is set in the CapEff line of /proc/<pid>/status. */
export function hasEffectiveCap(status: string, cap: bigint): boolean {
  const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(status);
  return m !== null && ((BigInt(`0x${m[1]}`) >> cap) & 1n) === 1n;
}
