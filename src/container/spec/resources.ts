// HostConfig's resources in the spec's shape, as moby's WithResources and WithRlimits write them
// (v20.10 daemon/oci_linux.go, daemon/daemon_unix.go): linux.resources (memory, cpu, blockIO, pids;
// devices come from devices.ts) and process.rlimits.
import { invalidParameter } from '../../errors.js';
import type { OciRlimit } from '../../runtime/oci-spec.js';
import type { Resources, ThrottleDevice, Ulimit } from '../config/types.js';
import { deviceNumbersOf } from './devices.js';

/** The CFS period NanoCpus is measured against: 100 ms, in µs. */
export const NANO_CPUS_PERIOD_US = 100_000;

export interface OciResources {
  memory: {
    limit?: number;
    reservation?: number;
    swap?: number;
    kernel?: number;
    kernelTCP?: number;
    swappiness?: number;
    disableOOMKiller?: boolean;
  };
  cpu: { shares: number; quota?: number; period?: number; realtimeRuntime?: number; realtimePeriod?: number; cpus?: string; mems?: string };
  blockIO: {
    weight: number;
    weightDevice?: Array<{ major: number; minor: number; weight: number }>;
    throttleReadBpsDevice?: Array<{ major: number; minor: number; rate: number }>;
    throttleWriteBpsDevice?: Array<{ major: number; minor: number; rate: number }>;
    throttleReadIOPSDevice?: Array<{ major: number; minor: number; rate: number }>;
    throttleWriteIOPSDevice?: Array<{ major: number; minor: number; rate: number }>;
  };
  pids?: { limit: number };
}

/** linux.resources without devices. Throttle and weight devices are stat'ed for their numbers, as dockerd does at start. */
export function ociResources(r: Resources): OciResources {
  const memory: OciResources['memory'] = {};
  if ((r.Memory ?? 0) > 0) memory.limit = r.Memory;
  if ((r.MemoryReservation ?? 0) > 0) memory.reservation = r.MemoryReservation;
  if ((r.MemorySwap ?? 0) > 0) memory.swap = r.MemorySwap;
  if (r.MemorySwappiness !== undefined && r.MemorySwappiness !== null && r.MemorySwappiness >= 0) memory.swappiness = r.MemorySwappiness;
  if (r.OomKillDisable !== undefined && r.OomKillDisable !== null) memory.disableOOMKiller = r.OomKillDisable;
  if (r.KernelMemory) memory.kernel = r.KernelMemory;
  if (r.KernelMemoryTCP) memory.kernelTCP = r.KernelMemoryTCP;

  const shares = r.CpuShares ?? 0;
  if (shares < 0) throw invalidParameter('shares: invalid argument');
  const cpu: OciResources['cpu'] = { shares };
  if (r.CpusetCpus) cpu.cpus = r.CpusetCpus;
  if (r.CpusetMems) cpu.mems = r.CpusetMems;
  if ((r.NanoCpus ?? 0) > 0) {
    cpu.period = NANO_CPUS_PERIOD_US;
    cpu.quota = Math.floor(((r.NanoCpus ?? 0) * NANO_CPUS_PERIOD_US) / 1e9);
  }
  if (r.CpuPeriod) cpu.period = r.CpuPeriod;
  if (r.CpuQuota) cpu.quota = r.CpuQuota;
  if (r.CpuRealtimePeriod) cpu.realtimePeriod = r.CpuRealtimePeriod;
  if (r.CpuRealtimeRuntime) cpu.realtimeRuntime = r.CpuRealtimeRuntime;

  const blockIO: OciResources['blockIO'] = { weight: r.BlkioWeight ?? 0 };
  if (r.BlkioWeightDevice?.length) blockIO.weightDevice = r.BlkioWeightDevice.map((d) => ({ ...deviceNumbersOf(d.Path), weight: d.Weight }));
  const throttle = (list: ThrottleDevice[] | null | undefined) => list?.length ? list.map((d) => ({ ...deviceNumbersOf(d.Path), rate: d.Rate })) : undefined;
  const readBps = throttle(r.BlkioDeviceReadBps);
  const writeBps = throttle(r.BlkioDeviceWriteBps);
  const readIops = throttle(r.BlkioDeviceReadIOps);
  const writeIops = throttle(r.BlkioDeviceWriteIOps);
  if (readBps) blockIO.throttleReadBpsDevice = readBps;
  if (writeBps) blockIO.throttleWriteBpsDevice = writeBps;
  if (readIops) blockIO.throttleReadIOPSDevice = readIops;
  if (writeIops) blockIO.throttleWriteIOPSDevice = writeIops;

  const out: OciResources = { memory, cpu, blockIO };
  // 0 and below mean unlimited, which runc spells -1
  if (r.PidsLimit !== undefined && r.PidsLimit !== null) out.pids = { limit: r.PidsLimit > 0 ? r.PidsLimit : -1 };
  return out;
}

/** Ulimits as process.rlimits: nofile → RLIMIT_NOFILE. */
export function ociRlimits(ulimits: readonly Ulimit[] | null | undefined): OciRlimit[] {
  return (ulimits ?? []).map((u) => ({ type: `RLIMIT_${u.Name.toUpperCase()}`, soft: u.Soft, hard: u.Hard }));
}
