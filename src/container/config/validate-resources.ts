// Resource checks and adjustments as dockerd 20.10's verifyPlatformContainerResources: what the
// cgroup hierarchy can't enforce is dropped with a warning, what is out of range is refused.
import { EngineError, invalidParameter } from '../../errors.js';
import type { CreateLimits } from './create-limits.js';
import type { HostConfig } from './types.js';

const minMemoryBytes = 6 * 1024 * 1024;

/**
 * The checks runconfig makes while decoding, which dockerd answers with a 500 (asked: both give
 * 500 on the reference); they come before every other check.
 */
export function checkDecoderResources(hc: HostConfig, limits: Pick<CreateLimits, 'cpuRealtime'>): void {
  if (hc.IOMaximumBandwidth) throw new EngineError('system', 'Invalid QoS settings: linux does not support configuration of maximum bandwidth');
  if (hc.IOMaximumIOps) throw new EngineError('system', 'Invalid QoS settings: linux does not support configuration of maximum IOPs');
  const period = hc.CpuRealtimePeriod ?? 0;
  const runtime = hc.CpuRealtimeRuntime ?? 0;
  if (period > 0 && !limits.cpuRealtime) throw new EngineError('system', 'Your kernel does not support cgroup cpu real-time period');
  if (runtime > 0 && !limits.cpuRealtime) throw new EngineError('system', 'Your kernel does not support cgroup cpu real-time runtime');
  if (period !== 0 && runtime !== 0 && runtime > period) {
    throw new EngineError('system', 'cpu real-time runtime cannot be higher than cpu real-time period');
  }
}

/**
 * Checks and adjusts hc's resources in place; returns dockerd's warnings for what it dropped. An
 * update (`docker update`) may give a swap limit alone: the memory limit is the container's.
 */
export function verifyResources(hc: HostConfig, limits: CreateLimits, opts: { update?: boolean } = {}): string[] {
  const f = limits.cgroup;
  const warnings: string[] = [];
  if (hc.MemorySwappiness === -1) hc.MemorySwappiness = null;

  const memory = () => hc.Memory ?? 0;
  const swap = () => hc.MemorySwap ?? 0;
  if (memory() !== 0 && memory() < minMemoryBytes) throw invalidParameter('Minimum memory limit allowed is 6MB');
  if (memory() > 0 && !f.memoryLimit) {
    warnings.push('Your kernel does not support memory limit capabilities or the cgroup is not mounted. Limitation discarded.');
    hc.Memory = 0;
    hc.MemorySwap = -1;
  }
  if (memory() > 0 && swap() !== -1 && !f.swapLimit) {
    warnings.push('Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.');
    hc.MemorySwap = -1;
  }
  if (memory() > 0 && swap() > 0 && swap() < memory()) {
    throw invalidParameter('Minimum memoryswap limit should be larger than memory limit, see usage');
  }
  if (memory() === 0 && swap() > 0 && !opts.update) throw invalidParameter('You should always set the Memory limit when using Memoryswap limit, see usage');
  if (hc.MemorySwappiness != null && !limits.memorySwappiness) {
    warnings.push('Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.');
    hc.MemorySwappiness = null;
  }
  if (hc.MemorySwappiness != null && (hc.MemorySwappiness < 0 || hc.MemorySwappiness > 100)) {
    throw invalidParameter(`Invalid value: ${hc.MemorySwappiness}, valid memory swappiness range is 0-100`);
  }
  const reservation = () => hc.MemoryReservation ?? 0;
  if (reservation() > 0 && !limits.memoryReservation) {
    warnings.push('Your kernel does not support memory soft limit capabilities or the cgroup is not mounted. Limitation discarded.');
    hc.MemoryReservation = 0;
  }
  if (reservation() > 0 && reservation() < minMemoryBytes) throw invalidParameter('Minimum memory reservation allowed is 6MB');
  if (memory() > 0 && reservation() > 0 && memory() < reservation()) {
    throw invalidParameter('Minimum memory limit can not be less than memory reservation limit, see usage');
  }
  if ((hc.KernelMemory ?? 0) > 0) {
    warnings.push('Specifying a kernel memory limit is deprecated and will be removed in a future release.');
    if (!f.kernelMemory) {
      warnings.push('Your kernel does not support kernel memory limit capabilities or the cgroup is not mounted. Limitation discarded.');
      hc.KernelMemory = 0;
    }
    if ((hc.KernelMemory ?? 0) > 0 && (hc.KernelMemory ?? 0) < minMemoryBytes) throw invalidParameter('Minimum kernel memory limit allowed is 6MB');
  }
  if ((hc.KernelMemoryTCP ?? 0) > 0 && !f.kernelMemoryTcp) {
    warnings.push('Your kernel does not support kernel memory TCP limit capabilities or the cgroup is not mounted. Limitation discarded.');
    hc.KernelMemoryTCP = 0;
  }
  if (hc.OomKillDisable != null && !f.oomKillDisable) {
    if (hc.OomKillDisable) warnings.push('Your kernel does not support OomKillDisable. OomKillDisable discarded.');
    hc.OomKillDisable = null;
  }
  if (hc.OomKillDisable && memory() === 0) {
    warnings.push('OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.');
  }
  if (hc.PidsLimit != null && !f.pidsLimit) {
    if (hc.PidsLimit > 0) warnings.push('Your kernel does not support PIDs limit capabilities or the cgroup is not mounted. PIDs limit discarded.');
    hc.PidsLimit = null;
  }

  verifyCpu(hc, limits, warnings);
  verifyBlkio(hc, limits, warnings);
  return warnings;
}

function verifyCpu(hc: HostConfig, limits: CreateLimits, warnings: string[]): void {
  const f = limits.cgroup;
  const nano = hc.NanoCpus ?? 0;
  if (nano > 0 && (hc.CpuPeriod ?? 0) > 0) throw invalidParameter('Conflicting options: Nano CPUs and CPU Period cannot both be set');
  if (nano > 0 && (hc.CpuQuota ?? 0) > 0) throw invalidParameter('Conflicting options: Nano CPUs and CPU Quota cannot both be set');
  if (nano > 0 && !(f.cpuCfsPeriod && f.cpuCfsQuota)) {
    throw invalidParameter('NanoCPUs can not be set, as your kernel does not support CPU cfs period/quota or the cgroup is not mounted');
  }
  if (nano < 0 || nano > limits.cpuCount * 1e9) {
    throw invalidParameter(`Range of CPUs is from 0.01 to ${limits.cpuCount}.00, as there are only ${limits.cpuCount} CPUs available`);
  }
  if ((hc.CpuShares ?? 0) > 0 && !f.cpuShares) {
    warnings.push('Your kernel does not support CPU shares or the cgroup is not mounted. Shares discarded.');
    hc.CpuShares = 0;
  }
  if ((hc.CpuPeriod ?? 0) > 0 && !f.cpuCfsPeriod) {
    warnings.push('Your kernel does not support CPU cfs period or the cgroup is not mounted. Period discarded.');
    hc.CpuPeriod = 0;
  }
  const period = hc.CpuPeriod ?? 0;
  if (period !== 0 && (period < 1000 || period > 1000000)) {
    throw invalidParameter('CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)');
  }
  if ((hc.CpuQuota ?? 0) > 0 && !f.cpuCfsQuota) {
    warnings.push('Your kernel does not support CPU cfs quota or the cgroup is not mounted. Quota discarded.');
    hc.CpuQuota = 0;
  }
  const quota = hc.CpuQuota ?? 0;
  if (quota > 0 && quota < 1000) throw invalidParameter('CPU cfs quota can not be less than 1ms (i.e. 1000)');
  if ((hc.CpuPercent ?? 0) > 0) {
    warnings.push('linux does not support CPU percent. Percent discarded.');
    hc.CpuPercent = 0;
  }

  if ((hc.CpusetCpus || hc.CpusetMems) && !f.cpuSet) {
    warnings.push('Your kernel does not support cpuset or the cgroup is not mounted. Cpuset discarded.');
    hc.CpusetCpus = '';
    hc.CpusetMems = '';
  }
  checkCpuset(hc.CpusetCpus ?? '', limits.cpusetCpus, 'cpus', 'CPUs');
  checkCpuset(hc.CpusetMems ?? '', limits.cpusetMems, 'mems', 'memory nodes');
}

function checkCpuset(requested: string, available: string, field: string, what: string): void {
  if (requested === '') return;
  let wanted: Set<number>;
  try {
    wanted = parseUintList(requested);
  } catch (err) {
    throw invalidParameter(`Invalid value ${requested} for cpuset ${field}: ${(err as Error).message}`);
  }
  const have = parseUintList(available);
  if ([...wanted].some((n) => !have.has(n))) {
    throw invalidParameter(`Requested ${what} are not available - requested ${requested}, available: ${available}`);
  }
}

/** A list like "0-3,5" as dockerd's parsers.ParseUintList reads it. */
export function parseUintList(list: string): Set<number> {
  const out = new Set<number>();
  if (list === '') return out;
  for (const part of list.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`invalid format: ${list}`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo) throw new Error(`invalid format: ${list}`);
    for (let i = lo; i <= hi; i++) out.add(i);
  }
  return out;
}

function verifyBlkio(hc: HostConfig, limits: CreateLimits, warnings: string[]): void {
  const f = limits.cgroup;
  if ((hc.BlkioWeight ?? 0) > 0 && !f.blkioWeight) {
    warnings.push('Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.');
    hc.BlkioWeight = 0;
  }
  const weight = hc.BlkioWeight ?? 0;
  if (weight > 0 && (weight < 10 || weight > 1000)) throw invalidParameter('Range of blkio weight is from 10 to 1000');
  const dropped: Array<[keyof HostConfig & `Blkio${string}`, boolean, string]> = [
    ['BlkioWeightDevice', f.blkioWeightDevice, 'Your kernel does not support Block I/O weight_device or the cgroup is not mounted. Weight-device discarded.'],
    ['BlkioDeviceReadBps', f.blkioReadBpsDevice, 'Your kernel does not support BPS Block I/O read limit or the cgroup is not mounted. Block I/O BPS read limit discarded.'],
    ['BlkioDeviceWriteBps', f.blkioWriteBpsDevice, 'Your kernel does not support BPS Block I/O write limit or the cgroup is not mounted. Block I/O BPS write limit discarded.'],
    ['BlkioDeviceReadIOps', f.blkioReadIopsDevice, 'Your kernel does not support IOPS Block read limit or the cgroup is not mounted. Block I/O IOPS read limit discarded.'],
    ['BlkioDeviceWriteIOps', f.blkioWriteIopsDevice, 'Your kernel does not support IOPS Block write limit or the cgroup is not mounted. Block I/O IOPS write limit discarded.'],
  ];
  for (const [field, supported, warning] of dropped) {
    const list = hc[field] as unknown[] | null | undefined;
    if (list?.length && !supported) {
      warnings.push(warning);
      (hc as Record<string, unknown>)[field] = [];
    }
  }
}
