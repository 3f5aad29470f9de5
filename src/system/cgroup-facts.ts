// What the machine's cgroups can enforce, read from the hierarchy as dockerd's sysinfo does.
import { existsSync, readFileSync, statfsSync } from 'node:fs';

const CGROUP_ROOT = '/sys/fs/cgroup';
const CGROUP2_SUPER_MAGIC = 0x63677270;

export interface CgroupFacts {
  version: '1' | '2';
  memoryLimit: boolean;
  swapLimit: boolean;
  kernelMemory: boolean;
  kernelMemoryTcp: boolean;
  oomKillDisable: boolean;
  cpuCfsPeriod: boolean;
  cpuCfsQuota: boolean;
  cpuShares: boolean;
  cpuSet: boolean;
  pidsLimit: boolean;
  blkioWeight: boolean;
  blkioWeightDevice: boolean;
  blkioReadBpsDevice: boolean;
  blkioWriteBpsDevice: boolean;
  blkioReadIopsDevice: boolean;
  blkioWriteIopsDevice: boolean;
}

export function readCgroupFacts(root = CGROUP_ROOT): CgroupFacts {
  return isUnifiedHierarchy(root) ? readUnified(root) : readV1(root);
}

/** Whether the hierarchy at `root` is cgroup v2 only (not v1, nor hybrid with v2 under unified/). */
export function isUnifiedHierarchy(root = CGROUP_ROOT): boolean {
  return statfsSync(root).type === CGROUP2_SUPER_MAGIC;
}

function readV1(root: string): CgroupFacts {
  const has = (controller: string, file: string) => existsSync(`${root}/${controller}/${file}`);
  const weight = has('blkio', 'blkio.weight') || has('blkio', 'blkio.bfq.weight');
  return {
    version: '1',
    memoryLimit: has('memory', 'memory.limit_in_bytes'),
    swapLimit: has('memory', 'memory.memsw.limit_in_bytes'),
    kernelMemory: has('memory', 'memory.kmem.limit_in_bytes'),
    kernelMemoryTcp: has('memory', 'memory.kmem.tcp.limit_in_bytes'),
    oomKillDisable: has('memory', 'memory.oom_control'),
    cpuCfsPeriod: has('cpu', 'cpu.cfs_period_us'),
    cpuCfsQuota: has('cpu', 'cpu.cfs_quota_us'),
    cpuShares: has('cpu', 'cpu.shares'),
    cpuSet: has('cpuset', 'cpuset.cpus') || has('cpuset', 'cpus'),
    pidsLimit: has('pids', 'pids.max') || existsSync(`${root}/pids`),
    blkioWeight: weight,
    blkioWeightDevice: has('blkio', 'blkio.weight_device') || has('blkio', 'blkio.bfq.weight_device'),
    blkioReadBpsDevice: has('blkio', 'blkio.throttle.read_bps_device'),
    blkioWriteBpsDevice: has('blkio', 'blkio.throttle.write_bps_device'),
    blkioReadIopsDevice: has('blkio', 'blkio.throttle.read_iops_device'),
    blkioWriteIopsDevice: has('blkio', 'blkio.throttle.write_iops_device'),
  };
}

function readUnified(root: string): CgroupFacts {
  let controllers = new Set<string>();
  try {
    controllers = new Set(readFileSync(`${root}/cgroup.controllers`, 'utf8').trim().split(/\s+/));
  } catch {
    // no controllers delegated: every fact below is false
  }
  const memory = controllers.has('memory');
  const cpu = controllers.has('cpu');
  const io = controllers.has('io');
  return {
    version: '2',
    memoryLimit: memory,
    swapLimit: memory,
    kernelMemory: false,
    kernelMemoryTcp: false,
    oomKillDisable: false,
    cpuCfsPeriod: cpu,
    cpuCfsQuota: cpu,
    cpuShares: cpu,
    cpuSet: controllers.has('cpuset'),
    pidsLimit: controllers.has('pids'),
    blkioWeight: io,
    blkioWeightDevice: io,
    blkioReadBpsDevice: io,
    blkioWriteBpsDevice: io,
    blkioReadIopsDevice: io,
    blkioWriteIopsDevice: io,
  };
}

/** The warnings dockerd's `docker info` prints for what the hierarchy can't enforce. */
export function cgroupWarnings(f: CgroupFacts): string[] {
  const missing: Array<[boolean, string]> = [
    [f.memoryLimit, 'memory limit'],
    [f.swapLimit, 'swap limit'],
    [f.version === '2' || f.kernelMemoryTcp, 'kernel memory TCP limit'],
    [f.version === '2' || f.oomKillDisable, 'oom kill disable'],
    [f.cpuCfsQuota, 'cpu cfs quota'],
    [f.cpuCfsPeriod, 'cpu cfs period'],
    [f.cpuShares, 'cpu shares'],
    [f.cpuSet, 'cpuset'],
    [f.pidsLimit, 'pids limit'],
    [f.blkioWeight, 'blkio weight'],
    [f.blkioWeightDevice, 'blkio weight_device'],
    [f.blkioReadBpsDevice, 'blkio throttle.read_bps_device'],
    [f.blkioWriteBpsDevice, 'blkio throttle.write_bps_device'],
    [f.blkioReadIopsDevice, 'blkio throttle.read_iops_device'],
    [f.blkioWriteIopsDevice, 'blkio throttle.write_iops_device'],
  ];
  return missing.filter(([supported]) => !supported).map(([, what]) => `WARNING: No ${what} support`);
}
