import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBlkioFile } from './cgroup-v1-sample.js';
import { parseIoStat } from './cgroup-v2-sample.js';
import { readHostCpu } from './host-counters.js';

test('v1 blkio lines: device, op and value; the Total line is skipped; sectors have no op', () => {
  assert.deepEqual(parseBlkioFile('8:0 Read 4096\n8:0 Write 0\nTotal 4096\n'), [
    { major: 8, minor: 0, op: 'Read', value: 4096n },
    { major: 8, minor: 0, op: 'Write', value: 0n },
  ]);
  assert.deepEqual(parseBlkioFile('253:1 123\n'), [{ major: 253, minor: 1, op: '', value: 123n }]);
});

test('v2 io.stat lines become read and write entries', () => {
  assert.deepEqual(parseIoStat('8:16 rbytes=1024 wbytes=2048 rios=1 wios=2 dbytes=0 dios=0\n'), [
    { major: 8, minor: 16, op: 'read', value: 1024n },
    { major: 8, minor: 16, op: 'write', value: 2048n },
  ]);
});

test('system CPU usage sums the first seven fields of /proc/stat in ns; online CPUs are the cpuN lines', () => {
  const stat = 'cpu  100 2 30 1000 5 1 2 7 0 0\ncpu0 50 1 15 500 2 0 1 3 0 0\ncpu1 50 1 15 500 3 1 1 4 0 0\nintr 1\n';
  assert.deepEqual(readHostCpu(stat), { systemCpuNs: 1140n * 10_000_000n, onlineCpus: 2 });
});
