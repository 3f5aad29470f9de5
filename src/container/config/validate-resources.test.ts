import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CgroupFacts } from '../../system/cgroup-facts.js';
import type { CreateLimits } from './create-limits.js';
import type { HostConfig } from './types.js';
import { checkDecoderResources, parseUintList, verifyResources } from './validate-resources.js';

const allFacts: CgroupFacts = {
  version: '1', memoryLimit: true, swapLimit: true, kernelMemory: true, kernelMemoryTcp: true, oomKillDisable: true,
  cpuCfsPeriod: true, cpuCfsQuota: true, cpuShares: true, cpuSet: true, pidsLimit: true, blkioWeight: true,
  blkioWeightDevice: true, blkioReadBpsDevice: true, blkioWriteBpsDevice: true, blkioReadIopsDevice: true, blkioWriteIopsDevice: true,
};
const noFacts = Object.fromEntries(Object.entries(allFacts).map(([k, v]) => [k, typeof v === 'boolean' ? false : v])) as CgroupFacts;

function limits(cgroup: CgroupFacts = allFacts, more: Partial<CreateLimits> = {}): CreateLimits {
  return {
    cgroup, memoryReservation: true, memorySwappiness: true, cpuRealtime: true, cgroupNamespaces: true, cpusetCpus: '0-1', cpusetMems: '0',
    rlimitHard: {}, cpuCount: 2, hasCapSysResource: false, logConfig: { Type: 'json-file', Config: {} }, ...more,
  };
}
const bad = (message: string) => ({ kind: 'invalidParameter', message });
const run = (hc: HostConfig, l = limits()) => ({ warnings: verifyResources(hc, l), hc });
const MB = 1024 * 1024;

describe('verifyResources: refusals in dockerd words', () => {
  const cases: Array<[HostConfig, string]> = [
    [{ Memory: 1000 }, 'Minimum memory limit allowed is 6MB'],
    [{ Memory: 10 * MB, MemorySwap: 5 * MB }, 'Minimum memoryswap limit should be larger than memory limit, see usage'],
    [{ MemorySwap: 50 * MB }, 'You should always set the Memory limit when using Memoryswap limit, see usage'],
    [{ MemorySwappiness: 101 }, 'Invalid value: 101, valid memory swappiness range is 0-100'],
    [{ MemoryReservation: 1000 }, 'Minimum memory reservation allowed is 6MB'],
    [{ Memory: 10 * MB, MemoryReservation: 20 * MB }, 'Minimum memory limit can not be less than memory reservation limit, see usage'],
    [{ KernelMemory: 1000 }, 'Minimum kernel memory limit allowed is 6MB'],
    [{ NanoCpus: 1e9, CpuPeriod: 100000 }, 'Conflicting options: Nano CPUs and CPU Period cannot both be set'],
    [{ NanoCpus: 1e9, CpuQuota: 100000 }, 'Conflicting options: Nano CPUs and CPU Quota cannot both be set'],
    [{ NanoCpus: 100e9 }, 'Range of CPUs is from 0.01 to 2.00, as there are only 2 CPUs available'],
    [{ NanoCpus: -1 }, 'Range of CPUs is from 0.01 to 2.00, as there are only 2 CPUs available'],
    [{ CpuPeriod: 500 }, 'CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)'],
    [{ CpuQuota: 500 }, 'CPU cfs quota can not be less than 1ms (i.e. 1000)'],
    [{ CpusetCpus: '0-64' }, 'Requested CPUs are not available - requested 0-64, available: 0-1'],
    [{ CpusetCpus: 'abc' }, 'Invalid value abc for cpuset cpus: invalid format: abc'],
    [{ CpusetMems: '3' }, 'Requested memory nodes are not available - requested 3, available: 0'],
    [{ BlkioWeight: 5 }, 'Range of blkio weight is from 10 to 1000'],
  ];
  for (const [hc, message] of cases) it(message, () => assert.throws(() => run(hc), bad(message)));
  it('refuses NanoCpus without CFS', () => {
    assert.throws(() => run({ NanoCpus: 1e9 }, limits(noFacts)), bad('NanoCPUs can not be set, as your kernel does not support CPU cfs period/quota or the cgroup is not mounted'));
  });
});

describe('verifyResources: adjustments and warnings', () => {
  it('accepts what the machine supports without a warning', () => {
    const { warnings, hc } = run({ Memory: 10 * MB, MemorySwappiness: 50, CpuShares: 512, CpusetCpus: '0-1', BlkioWeight: 500, PidsLimit: 5 });
    assert.deepEqual(warnings, []);
    assert.equal(hc.MemorySwappiness, 50);
  });
  it('treats swappiness -1 as unset', () => assert.equal(run({ MemorySwappiness: -1 }).hc.MemorySwappiness, null));
  it('warns that kernel memory is deprecated, and keeps it where supported (as the reference here)', () => {
    const { warnings, hc } = run({ KernelMemory: 10 * MB });
    assert.deepEqual(warnings, ['Specifying a kernel memory limit is deprecated and will be removed in a future release.']);
    assert.equal(hc.KernelMemory, 10 * MB);
  });
  it('warns of a disabled OOM killer without a memory limit', () => {
    assert.deepEqual(run({ OomKillDisable: true }).warnings, [
      'OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.',
    ]);
  });
  it('drops CpuPercent with a warning', () => {
    const { warnings, hc } = run({ CpuPercent: 50 });
    assert.deepEqual([warnings, hc.CpuPercent], [['linux does not support CPU percent. Percent discarded.'], 0]);
  });
  it('drops what the hierarchy cannot enforce, each with its warning', () => {
    const hc: HostConfig = {
      Memory: 10 * MB, MemorySwappiness: 10, MemoryReservation: 8 * MB, KernelMemoryTCP: 10 * MB, OomKillDisable: true, PidsLimit: 5,
      CpuShares: 5, CpuPeriod: 100000, CpuQuota: 50000, CpusetCpus: '0', BlkioWeight: 500, BlkioWeightDevice: [{ Path: '/dev/sda', Weight: 10 }],
      BlkioDeviceReadBps: [{ Path: '/dev/sda', Rate: 1 }], BlkioDeviceWriteBps: [{ Path: '/dev/sda', Rate: 1 }],
      BlkioDeviceReadIOps: [{ Path: '/dev/sda', Rate: 1 }], BlkioDeviceWriteIOps: [{ Path: '/dev/sda', Rate: 1 }],
    };
    const { warnings } = run(hc, limits(noFacts, { memorySwappiness: false, memoryReservation: false }));
    assert.deepEqual(warnings, [
      'Your kernel does not support memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
      'Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.',
      'Your kernel does not support memory soft limit capabilities or the cgroup is not mounted. Limitation discarded.',
      'Your kernel does not support kernel memory TCP limit capabilities or the cgroup is not mounted. Limitation discarded.',
      'Your kernel does not support OomKillDisable. OomKillDisable discarded.',
      'Your kernel does not support PIDs limit capabilities or the cgroup is not mounted. PIDs limit discarded.',
      'Your kernel does not support CPU shares or the cgroup is not mounted. Shares discarded.',
      'Your kernel does not support CPU cfs period or the cgroup is not mounted. Period discarded.',
      'Your kernel does not support CPU cfs quota or the cgroup is not mounted. Quota discarded.',
      'Your kernel does not support cpuset or the cgroup is not mounted. Cpuset discarded.',
      'Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.',
      'Your kernel does not support Block I/O weight_device or the cgroup is not mounted. Weight-device discarded.',
      'Your kernel does not support BPS Block I/O read limit or the cgroup is not mounted. Block I/O BPS read limit discarded.',
      'Your kernel does not support BPS Block I/O write limit or the cgroup is not mounted. Block I/O BPS write limit discarded.',
      'Your kernel does not support IOPS Block read limit or the cgroup is not mounted. Block I/O IOPS read limit discarded.',
      'Your kernel does not support IOPS Block write limit or the cgroup is not mounted. Block I/O IOPS write limit discarded.',
    ]);
    assert.deepEqual(
      [hc.Memory, hc.MemorySwap, hc.MemorySwappiness, hc.MemoryReservation, hc.KernelMemoryTCP, hc.OomKillDisable, hc.PidsLimit, hc.CpuShares, hc.CpuPeriod, hc.CpuQuota, hc.CpusetCpus, hc.BlkioWeight, hc.BlkioWeightDevice],
      [0, -1, null, 0, 0, null, null, 0, 0, 0, '', 0, []],
    );
  });
  it('limits memory without swap where swap cannot be limited', () => {
    const { warnings, hc } = run({ Memory: 10 * MB }, limits({ ...allFacts, swapLimit: false }));
    assert.deepEqual(warnings, ['Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.']);
    assert.equal(hc.MemorySwap, -1);
  });
  it('drops kernel memory where unsupported, after the deprecation warning', () => {
    const { warnings, hc } = run({ KernelMemory: 10 * MB }, limits({ ...allFacts, kernelMemory: false }));
    assert.equal(warnings.length, 2);
    assert.equal(hc.KernelMemory, 0);
  });
});

describe('checkDecoderResources (500s on the reference)', () => {
  const sys = (message: string) => ({ kind: 'system', message });
  it('refuses Windows QoS fields', () => {
    assert.throws(() => checkDecoderResources({ IOMaximumBandwidth: 5 }, limits()), sys('Invalid QoS settings: linux does not support configuration of maximum bandwidth'));
    assert.throws(() => checkDecoderResources({ IOMaximumIOps: 5 }, limits()), sys('Invalid QoS settings: linux does not support configuration of maximum IOPs'));
  });
  it('refuses a real-time runtime above the period, and real-time without support', () => {
    assert.throws(() => checkDecoderResources({ CpuRealtimePeriod: 1000, CpuRealtimeRuntime: 2000 }, limits()), sys('cpu real-time runtime cannot be higher than cpu real-time period'));
    assert.throws(() => checkDecoderResources({ CpuRealtimePeriod: 1000 }, limits(allFacts, { cpuRealtime: false })), sys('Your kernel does not support cgroup cpu real-time period'));
    assert.throws(() => checkDecoderResources({ CpuRealtimeRuntime: 1000 }, limits(allFacts, { cpuRealtime: false })), sys('Your kernel does not support cgroup cpu real-time runtime'));
    checkDecoderResources({ CpuRealtimePeriod: 2000, CpuRealtimeRuntime: 1000 }, limits());
  });
});

describe('parseUintList', () => {
  it('reads lists and ranges', () => assert.deepEqual([...parseUintList('0-2,5')], [0, 1, 2, 5]));
  it('refuses anything else', () => {
    for (const s of ['a', '1-', '3-1', '1,,2']) assert.throws(() => parseUintList(s), { message: `invalid format: ${s}` });
  });
});
