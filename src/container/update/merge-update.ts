// What an update changes in a container's HostConfig, as dockerd 20.10's Container.UpdateContainer:
// the resources given (a zero leaves the current value), checked against the current ones, and the
// restart policy when one is named. Other Resources fields in the body are ignored. And the
// linux.resources runc update gets: the request's own values (toContainerdResources), where a zero
// means unchanged.
import { conflict } from '../../errors.js';
import type { HostConfig, Resources } from '../config/types.js';
import { NANO_CPUS_PERIOD_US } from '../spec/resources.js';
import type { ContainerUpdate } from './update-body.js';

/** The container's HostConfig after the update; `current` is left as it is. Conflicts throw dockerd's words. */
export function mergeUpdate(current: HostConfig, u: ContainerUpdate): HostConfig {
  const r = u.resources;
  const next = structuredClone(current);
  // NanoCpus stands for a period and quota of its own: neither may join the other
  if (n(r.NanoCpus) > 0 && n(current.CpuPeriod) > 0) throw conflict('Conflicting options: Nano CPUs cannot be updated as CPU Period has already been set');
  if (n(r.NanoCpus) > 0 && n(current.CpuQuota) > 0) throw conflict('Conflicting options: Nano CPUs cannot be updated as CPU Quota has already been set');
  if (n(r.CpuPeriod) > 0 && n(current.NanoCpus) > 0) throw conflict('Conflicting options: CPU Period cannot be updated as NanoCPUs has already been set');
  if (n(r.CpuQuota) > 0 && n(current.NanoCpus) > 0) throw conflict('Conflicting options: CPU Quota cannot be updated as NanoCPUs has already been set');

  const copyNonZero = ['BlkioWeight', 'CpuShares', 'NanoCpus', 'CpuPeriod', 'CpuQuota', 'CpusetCpus', 'CpusetMems'] as const;
  for (const k of copyNonZero) if (r[k]) (next as Record<string, unknown>)[k] = r[k];
  if (n(r.Memory) !== 0) {
    // dockerd compares with the swap limit as recorded, 0 and -1 included
    if (n(r.Memory) > n(current.MemorySwap) && n(r.MemorySwap) === 0) {
      throw conflict('Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time');
    }
    next.Memory = r.Memory;
  }
  const alsoNonZero = ['MemorySwap', 'MemoryReservation', 'KernelMemory', 'CpuRealtimePeriod', 'CpuRealtimeRuntime'] as const;
  for (const k of alsoNonZero) if (r[k]) next[k] = r[k];
  if (r.PidsLimit !== undefined && r.PidsLimit !== null) next.PidsLimit = r.PidsLimit;

  const policy = u.restartPolicy;
  if (policy !== undefined && policy.Name !== '') {
    if (current.AutoRemove && policy.Name !== 'no') throw conflict('Restart policy cannot be updated because AutoRemove is enabled for the container');
    next.RestartPolicy = { Name: policy.Name, MaximumRetryCount: policy.MaximumRetryCount ?? 0 };
  }
  return next;
}

/** The request's resources for `runc update --resources -` (dockerd's toContainerdResources). */
export function runcUpdateResources(r: Resources): Record<string, unknown> {
  let period = 0;
  let quota = 0;
  if (n(r.NanoCpus) !== 0) {
    period = NANO_CPUS_PERIOD_US;
    quota = Math.floor((n(r.NanoCpus) * NANO_CPUS_PERIOD_US) / 1e9);
  }
  if (quota === 0) quota = n(r.CpuQuota);
  if (period === 0) period = n(r.CpuPeriod);
  const memory: Record<string, number> = { limit: n(r.Memory), reservation: n(r.MemoryReservation), kernel: n(r.KernelMemory) };
  if (n(r.MemorySwap) > 0) memory.swap = n(r.MemorySwap);
  const out: Record<string, unknown> = {
    blockIO: { weight: n(r.BlkioWeight) },
    cpu: { shares: n(r.CpuShares), cpus: r.CpusetCpus ?? '', mems: r.CpusetMems ?? '', period, quota },
    memory,
  };
  // runc needs -1 to lift a limit
  if (r.PidsLimit !== undefined && r.PidsLimit !== null) out.pids = { limit: r.PidsLimit <= 0 ? -1 : r.PidsLimit };
  return out;
}

/** Go's zero for an absent number. */
function n(v: number | undefined): number {
  return v ?? 0;
}
