import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostConfig } from '../config/types.js';
import { mergeUpdate, runcUpdateResources } from './merge-update.js';

const MiB = 1024 * 1024;

test('a zero leaves the current value; what is given replaces it; the current HostConfig is untouched', () => {
  const current: HostConfig = { Memory: 64 * MiB, MemorySwap: 128 * MiB, CpuShares: 512, RestartPolicy: { Name: 'no', MaximumRetryCount: 0 } };
  const next = mergeUpdate(current, { resources: { Memory: 100 * MiB, CpuShares: 0, PidsLimit: 50, CpuRealtimePeriod: 1000 } });
  assert.equal(next.Memory, 100 * MiB);
  assert.equal(next.MemorySwap, 128 * MiB);
  assert.equal(next.CpuShares, 512);
  assert.equal(next.PidsLimit, 50);
  assert.equal(next.CpuRealtimePeriod, 1000);
  assert.equal(current.Memory, 64 * MiB);
});

test('memory above the recorded swap limit needs a swap limit too, as dockerd (0 and -1 included)', () => {
  const msg = 'Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time';
  assert.throws(() => mergeUpdate({ MemorySwap: 0 }, { resources: { Memory: 64 * MiB } }), { kind: 'conflict', message: msg });
  assert.throws(() => mergeUpdate({ MemorySwap: -1 }, { resources: { Memory: 64 * MiB } }), { kind: 'conflict', message: msg });
  assert.equal(mergeUpdate({ MemorySwap: 0 }, { resources: { Memory: 64 * MiB, MemorySwap: -1 } }).MemorySwap, -1);
  assert.equal(mergeUpdate({ Memory: 64 * MiB, MemorySwap: 128 * MiB }, { resources: { Memory: 100 * MiB } }).Memory, 100 * MiB);
});

test('NanoCpus and an explicit period or quota exclude each other across updates', () => {
  assert.throws(() => mergeUpdate({ CpuPeriod: 50000 }, { resources: { NanoCpus: 1e9 } }), { message: 'Conflicting options: Nano CPUs cannot be updated as CPU Period has already been set' });
  assert.throws(() => mergeUpdate({ CpuQuota: 50000 }, { resources: { NanoCpus: 1e9 } }), { message: 'Conflicting options: Nano CPUs cannot be updated as CPU Quota has already been set' });
  assert.throws(() => mergeUpdate({ NanoCpus: 1e9 }, { resources: { CpuPeriod: 50000 } }), { message: 'Conflicting options: CPU Period cannot be updated as NanoCPUs has already been set' });
  assert.throws(() => mergeUpdate({ NanoCpus: 1e9 }, { resources: { CpuQuota: 50000 } }), { kind: 'conflict', message: 'Conflicting options: CPU Quota cannot be updated as NanoCPUs has already been set' });
});

test('a named restart policy replaces the current one, except "no"-less ones with AutoRemove', () => {
  assert.deepEqual(mergeUpdate({}, { resources: {}, restartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } }).RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 3 });
  assert.deepEqual(mergeUpdate({ RestartPolicy: { Name: 'always', MaximumRetryCount: 0 } }, { resources: {}, restartPolicy: { Name: '', MaximumRetryCount: 0 } }).RestartPolicy, { Name: 'always', MaximumRetryCount: 0 });
  assert.throws(() => mergeUpdate({ AutoRemove: true }, { resources: {}, restartPolicy: { Name: 'always', MaximumRetryCount: 0 } }), {
    kind: 'conflict',
    message: 'Restart policy cannot be updated because AutoRemove is enabled for the container',
  });
  assert.equal(mergeUpdate({ AutoRemove: true }, { resources: {}, restartPolicy: { Name: 'no', MaximumRetryCount: 0 } }).RestartPolicy?.Name, 'no');
});

test('runc gets the request as dockerd sends it: NanoCpus as a 100 ms period, swap only when positive, pids 0 as -1', () => {
  assert.deepEqual(runcUpdateResources({ NanoCpus: 5e8, Memory: 64 * MiB, MemorySwap: -1, PidsLimit: 0 }), {
    blockIO: { weight: 0 },
    cpu: { shares: 0, cpus: '', mems: '', period: 100000, quota: 50000 },
    memory: { limit: 64 * MiB, reservation: 0, kernel: 0 },
    pids: { limit: -1 },
  });
  assert.deepEqual(runcUpdateResources({ CpuQuota: 20000, CpuPeriod: 40000, MemorySwap: 128 * MiB, CpusetCpus: '0' }), {
    blockIO: { weight: 0 },
    cpu: { shares: 0, cpus: '0', mems: '', period: 40000, quota: 20000 },
    memory: { limit: 0, reservation: 0, kernel: 0, swap: 128 * MiB },
  });
});
