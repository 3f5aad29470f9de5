import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { readCgroupV1Sample } from './cgroup-v1-sample.js';
import { readCgroupV2Sample } from './cgroup-v2-sample.js';

const root = mkdtempSync(path.join(tmpdir(), 'berth-cgroup-'));
after(() => rmSync(root, { recursive: true, force: true }));

function files(dir: string, content: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(content)) writeFileSync(path.join(dir, name), text);
}

test('v1: cpuacct, cpu, memory, pids and blkio files in their controllers\' directories', () => {
  const base = path.join(root, 'v1');
  files(path.join(base, 'cpuacct'), { 'cpuacct.usage': '123\n', 'cpuacct.usage_percpu': '100 23 \n', 'cpuacct.stat': 'user 5\nsystem 2\n' });
  files(path.join(base, 'cpu'), { 'cpu.stat': 'nr_periods 3\nnr_throttled 1\nthrottled_time 7\n' });
  files(path.join(base, 'memory'), {
    'memory.stat': 'cache 10\nrss 20\ntotal_rss 20\nhierarchical_memory_limit 9223372036854771712\nshmem 4\n',
    'memory.usage_in_bytes': '4096\n',
    'memory.max_usage_in_bytes': '8192\n',
    'memory.failcnt': '0\n',
    'memory.limit_in_bytes': '9223372036854771712\n',
  });
  files(path.join(base, 'pids'), { 'pids.current': '2\n', 'pids.max': 'max\n' });
  files(path.join(base, 'blkio'), { 'blkio.throttle.io_service_bytes_recursive': '8:0 Read 512\n8:0 Write 0\nTotal 512\n' });
  const s = readCgroupV1Sample({ version: '1', dir: (c) => path.join(base, c) });
  assert.deepEqual(s.cpu, {
    totalNs: 123n,
    perCpuNs: [100n, 23n],
    kernelNs: 20_000_000n,
    userNs: 50_000_000n,
    throttling: { periods: 3n, throttledPeriods: 1n, throttledTimeNs: 7n },
  });
  assert.equal(s.memory.usage, 4096n);
  assert.equal(s.memory.maxUsage, 8192n);
  assert.equal(s.memory.limit, 9223372036854771712n);
  assert.equal(s.memory.stats.hierarchical_memory_limit, 9223372036854771712n);
  assert.equal(s.memory.stats.total_cache, 0n);
  assert.equal(Object.keys(s.memory.stats).length, 32);
  assert.ok(!('shmem' in s.memory.stats));
  assert.deepEqual(s.pids, { current: 2n, limit: 0n });
  assert.deepEqual(s.blkio.ioServiceBytesRecursive, [
    { major: 8, minor: 0, op: 'Read', value: 512n },
    { major: 8, minor: 0, op: 'Write', value: 0n },
  ]);
  assert.deepEqual(s.blkio.sectorsRecursive, []);
});

test('v2: one directory; µs become ns, failcnt is memory.events\' oom, io only as bytes', () => {
  const dir = path.join(root, 'v2');
  files(dir, {
    'cpu.stat': 'usage_usec 10\nuser_usec 7\nsystem_usec 3\nnr_periods 4\nnr_throttled 2\nthrottled_usec 5\n',
    'memory.stat': 'anon 100\nfile 200\n',
    'memory.current': '300\n',
    'memory.max': 'max\n',
    'memory.events': 'low 0\nhigh 0\nmax 1\noom 1\noom_kill 1\n',
    'pids.current': '1\n',
    'pids.max': 'max\n',
    'io.stat': '8:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n',
  });
  const s = readCgroupV2Sample({ version: '2', dir: () => dir });
  assert.deepEqual(s.cpu, { totalNs: 10_000n, kernelNs: 3_000n, userNs: 7_000n, throttling: { periods: 4n, throttledPeriods: 2n, throttledTimeNs: 5_000n } });
  assert.deepEqual({ usage: s.memory.usage, limit: s.memory.limit, failcnt: s.memory.failcnt, maxUsage: s.memory.maxUsage }, { usage: 300n, limit: 2n ** 64n - 1n, failcnt: 1n, maxUsage: undefined });
  assert.equal(s.memory.stats.anon, 100n);
  assert.deepEqual(s.pids, { current: 1n, limit: 2n ** 64n - 1n });
  assert.deepEqual(s.blkio, {
    ioServiceBytesRecursive: [
      { major: 8, minor: 0, op: 'read', value: 4096n },
      { major: 8, minor: 0, op: 'write', value: 0n },
    ],
  });
});
