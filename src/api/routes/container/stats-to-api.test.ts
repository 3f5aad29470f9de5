import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatsSample } from '../../../container/stats/container-stats.js';
import { encodeStatsJson } from './stats-to-api.js';

const target = { id: 'abc', name: '/c' };

test("a stopped container's frame is dockerd's empty StatsJSON, byte for byte", () => {
  assert.equal(
    encodeStatsJson({}, target),
    '{"read":"0001-01-01T00:00:00Z","preread":"0001-01-01T00:00:00Z","pids_stats":{},"blkio_stats":{"io_service_bytes_recursive":null,"io_serviced_recursive":null,"io_queue_recursive":null,"io_service_time_recursive":null,"io_wait_time_recursive":null,"io_merged_recursive":null,"io_time_recursive":null,"sectors_recursive":null},"num_procs":0,"storage_stats":{},"cpu_stats":{"cpu_usage":{"total_usage":0,"usage_in_kernelmode":0,"usage_in_usermode":0},"throttling_data":{"periods":0,"throttled_periods":0,"throttled_time":0}},"precpu_stats":{"cpu_usage":{"total_usage":0,"usage_in_kernelmode":0,"usage_in_usermode":0},"throttling_data":{"periods":0,"throttled_periods":0,"throttled_time":0}},"memory_stats":{},"name":"/c","id":"abc"}',
  );
});

test('a sample: zero counters left out as Go omitempty does, memory stats sorted, big limits exact', () => {
  const sample: StatsSample = {
    readNs: 1_700_000_000_123_400_000n,
    host: { systemCpuNs: 5n, onlineCpus: 2 },
    cgroup: {
      cpu: { totalNs: 10n, perCpuNs: [6n, 4n], kernelNs: 0n, userNs: 10n, throttling: { periods: 0n, throttledPeriods: 0n, throttledTimeNs: 0n } },
      memory: { usage: 100n, maxUsage: 200n, failcnt: 0n, limit: 300n, stats: { rss: 1n, hierarchical_memory_limit: 9223372036854771712n } },
      pids: { current: 2n, limit: 0n },
      blkio: { ioServiceBytesRecursive: [{ major: 8, minor: 0, op: 'Read', value: 1n }] },
    },
  };
  const json = encodeStatsJson({ read: sample }, target);
  assert.match(json, /^\{"read":"2023-11-14T22:13:20\.1234Z","preread":"0001-01-01T00:00:00Z","pids_stats":\{"current":2\},/);
  assert.match(json, /"io_service_bytes_recursive":\[\{"major":8,"minor":0,"op":"Read","value":1\}\],"io_serviced_recursive":null/);
  assert.match(json, /"cpu_stats":\{"cpu_usage":\{"total_usage":10,"percpu_usage":\[6,4\],"usage_in_kernelmode":0,"usage_in_usermode":10\},"system_cpu_usage":5,"online_cpus":2,/);
  assert.match(json, /"memory_stats":\{"usage":100,"max_usage":200,"stats":\{"hierarchical_memory_limit":9223372036854771712,"rss":1\},"limit":300\}/);
});
