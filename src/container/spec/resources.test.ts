import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ociResources, ociRlimits } from './resources.js';

describe('resources', () => {
  it("writes what dockerd writes for a container without limits", () => {
    assert.deepEqual(ociResources({ OomKillDisable: false }), { memory: { disableOOMKiller: false }, cpu: { shares: 0 }, blockIO: { weight: 0 } });
  });

  it('maps memory, cpu and pids', () => {
    const r = ociResources({
      Memory: 64 << 20,
      MemoryReservation: 32 << 20,
      MemorySwap: 128 << 20,
      MemorySwappiness: 10,
      KernelMemory: 1 << 20,
      KernelMemoryTCP: 2 << 20,
      OomKillDisable: true,
      CpuShares: 512,
      CpusetCpus: '0',
      CpusetMems: '0',
      CpuRealtimePeriod: 1000,
      CpuRealtimeRuntime: 500,
      PidsLimit: 100,
      BlkioWeight: 300,
    });
    assert.deepEqual(r, {
      memory: { limit: 64 << 20, reservation: 32 << 20, swap: 128 << 20, swappiness: 10, kernel: 1 << 20, kernelTCP: 2 << 20, disableOOMKiller: true },
      cpu: { shares: 512, cpus: '0', mems: '0', realtimePeriod: 1000, realtimeRuntime: 500 },
      blockIO: { weight: 300 },
      pids: { limit: 100 },
    });
  });

  it('turns NanoCpus into a quota per 100 ms period, which CpuPeriod and CpuQuota override', () => {
    assert.deepEqual(ociResources({ NanoCpus: 1.5e9 }).cpu, { shares: 0, period: 100_000, quota: 150_000 });
    assert.deepEqual(ociResources({ NanoCpus: 1e9, CpuPeriod: 50_000 }).cpu, { shares: 0, period: 50_000, quota: 100_000 });
    assert.deepEqual(ociResources({ CpuQuota: 20_000 }).cpu, { shares: 0, quota: 20_000 });
  });

  it('unsets pids and swappiness as runc expects', () => {
    assert.deepEqual(ociResources({ PidsLimit: 0 }).pids, { limit: -1 });
    assert.deepEqual(ociResources({ PidsLimit: -1 }).pids, { limit: -1 });
    assert.equal(ociResources({ PidsLimit: null }).pids, undefined);
    assert.equal(ociResources({ MemorySwappiness: -1 }).memory.swappiness, undefined);
  });

  it('refuses negative shares', () => {
    assert.throws(() => ociResources({ CpuShares: -1 }), { kind: 'invalidParameter', message: 'shares: invalid argument' });
  });

  it('stats block devices for their numbers', () => {
    const r = ociResources({ BlkioWeightDevice: [{ Path: '/dev/null', Weight: 200 }], BlkioDeviceReadBps: [{ Path: '/dev/zero', Rate: 1024 }], BlkioDeviceWriteIOps: [{ Path: '/dev/null', Rate: 10 }] });
    assert.deepEqual(r.blockIO, {
      weight: 0,
      weightDevice: [{ major: 1, minor: 3, weight: 200 }],
      throttleReadBpsDevice: [{ major: 1, minor: 5, rate: 1024 }],
      throttleWriteIOPSDevice: [{ major: 1, minor: 3, rate: 10 }],
    });
    assert.throws(() => ociResources({ BlkioDeviceReadBps: [{ Path: '/no/such', Rate: 1 }] }), /ENOENT/);
  });

  it('names rlimits as runc does', () => {
    assert.deepEqual(ociRlimits([{ Name: 'nofile', Soft: 1024, Hard: 2048 }, { Name: 'nproc', Soft: 10, Hard: 20 }]), [
      { type: 'RLIMIT_NOFILE', soft: 1024, hard: 2048 },
      { type: 'RLIMIT_NPROC', soft: 10, hard: 20 },
    ]);
    assert.deepEqual(ociRlimits(null), []);
  });
});
