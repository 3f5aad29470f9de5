// The host's side of a stats sample, as dockerd's collector reads it: the CPU time of the whole
// machine (/proc/stat's first line: user, nice, system, idle, iowait, irq, softirq, in ns), the
// CPUs online, and the machine's memory (which caps a limit that is not set).
import { readFileSync } from 'node:fs';

const NS_PER_TICK = 10_000_000n;

export interface HostCpu {
  systemCpuNs: bigint;
  onlineCpus: number;
}

export function readHostCpu(procStat = readFileSync('/proc/stat', 'utf8')): HostCpu {
  const lines = procStat.split('\n');
  const first = (lines[0] ?? '').trim().split(/\s+/);
  if (first[0] !== 'cpu') throw new Error('/proc/stat has no cpu line');
  const ticks = first.slice(1, 8).reduce((sum, v) => sum + BigInt(v), 0n);
  return { systemCpuNs: ticks * NS_PER_TICK, onlineCpus: lines.filter((l) => /^cpu\d+ /.test(l)).length };
}

let machineMemory: bigint | undefined;

/** MemTotal in bytes. */
export function machineMemoryBytes(): bigint {
  machineMemory ??= BigInt(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? '0') * 1024n;
  return machineMemory;
}
