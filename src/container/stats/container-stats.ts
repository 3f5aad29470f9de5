// GET /containers/{id}/stats as dockerd 20.10 answers it: a sample a second while streaming, each
// with the one before it as "pre" (so a client can compute CPU %); without streaming, two samples
// a second apart and only the second sent, or with one-shot a single sample and no "pre". A
// container that is not running gives empty frames (a stream goes on sending them, and picks up
// again if the container starts); a stream ends when the container is removed.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { nowNanos } from '../../lib/timestamp.js';
import { containerCgroup } from './container-cgroup.js';
import type { CgroupSample } from './cgroup-sample.js';
import { readCgroupV1Sample } from './cgroup-v1-sample.js';
import { readCgroupV2Sample } from './cgroup-v2-sample.js';
import { machineMemoryBytes, readHostCpu, type HostCpu } from './host-counters.js';
import { parseNetDev, type NetworkCounters } from './network-counters.js';

/** dockerd's collector interval. */
export const STATS_INTERVAL_MS = 1000;

export interface StatsSample {
  readNs: bigint;
  cgroup: CgroupSample;
  host: HostCpu;
  /** for a container with a network namespace of its own: its interfaces */
  networks?: Record<string, NetworkCounters>;
}

/** What one line of the answer shows: this sample (none when not running) and the one before. */
export interface StatsFrame {
  read?: StatsSample;
  pre?: StatsSample;
}

export interface StatsOptions {
  stream: boolean;
  oneShot: boolean;
  signal: AbortSignal;
}

/**
 * Reads the container's cgroup now, and with `netPid` (a process in its own network namespace) its
 * interfaces; undefined when it is gone (the run ended).
 */
export function sampleCgroup(cgroupsPath: string, netPid?: number): StatsSample | undefined {
  const cg = containerCgroup(cgroupsPath);
  if (!existsSync(cg.dir('memory'))) return undefined;
  const readNs = nowNanos();
  let cgroup: CgroupSample;
  try {
    cgroup = cg.version === '1' ? readCgroupV1Sample(cg) : readCgroupV2Sample(cg);
  } catch (err) {
    // the run ended while its files were read
    if ((err as NodeJS.ErrnoException).code === 'ENODEV' || !existsSync(cg.dir('memory'))) return undefined;
    throw err;
  }
  // the host's counter right after the container's, so their deltas match (as dockerd's collector)
  const host = readHostCpu();
  // a limit that is not set reads as a huge number: the machine's memory is the real bound
  const machine = machineMemoryBytes();
  if (machine > 0n && cgroup.memory.limit > machine) cgroup.memory.limit = machine;
  return { readNs, cgroup, host, ...(netPid !== undefined && { networks: readNetworks(netPid) }) };
}

function readNetworks(pid: number): Record<string, NetworkCounters> | undefined {
  try {
    return parseNetDev(readFileSync(`/proc/${pid}/net/dev`, 'utf8'));
  } catch {
    // the process ended between the cgroup and this
    return undefined;
  }
}

export interface StatsSource {
  /** undefined while the container does not run */
  sample(): StatsSample | undefined;
  /** false once the container is removed */
  exists(): boolean;
}

/** The frames to send, ending when not streaming, when `signal` fires, or when the container goes. */
export async function* statsFrames(source: StatsSource, opts: StatsOptions): AsyncGenerator<StatsFrame> {
  let pre = source.sample();
  if (!opts.stream) {
    if (pre === undefined || opts.oneShot) {
      yield { read: pre };
      return;
    }
    // prime the CPU figures, as dockerd does, so that the one frame has a "pre"
    if (!(await pause(opts.signal))) return;
    yield { read: source.sample(), pre };
    return;
  }
  yield { read: pre };
  while ((await pause(opts.signal)) && source.exists()) {
    const read = source.sample();
    yield { read, pre };
    pre = read;
  }
}

/** Waits one interval; false when the signal fired instead. */
async function pause(signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(STATS_INTERVAL_MS, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
