// docker top, docker stats and docker update against real containers: ps rows of the container's
// own processes, cgroup counters that move with what the container does (memory it fills, CPU it
// burns), and limits that reach the container's cgroup, its record and its next start.
import assert from 'node:assert/strict';
import { readFileSync, statfsSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { untilDefined as until } from '../../helpers/until.js';

const MiB = 1024 * 1024;
const unified = statfsSync('/sys/fs/cgroup').type === 0x63677270;

/** A file of the container's cgroup: v1 `memory.limit_in_bytes` under the memory controller, or a v2 one. */
function cgroupFile(id: string, v1: [controller: string, file: string], v2: string): string {
  return readFileSync(unified ? `/sys/fs/cgroup/berth/${id}/${v2}` : `/sys/fs/cgroup/${v1[0]}/berth/${id}/${v1[1]}`, 'utf8').trim();
}

/** Reads a streaming response until it holds `count` lines, then hangs up; the head and the lines. */
function firstLines(socketPath: string, urlPath: string, count: number): Promise<{ headers: http.IncomingHttpHeaders; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: urlPath, timeout: 20000 }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        const lines = text.split('\n');
        if (lines.length > count) {
          req.destroy();
          resolve({ headers: res.headers, lines: lines.slice(0, count) });
        }
      });
      res.on('error', () => undefined);
    });
    req.on('timeout', () => req.destroy(new Error(`${urlPath} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const STATS_KEYS = ['read', 'preread', 'pids_stats', 'blkio_stats', 'num_procs', 'storage_stats', 'cpu_stats', 'precpu_stats', 'memory_stats', 'name', 'id'];

interface StatsJson {
  read: string;
  networks?: Record<string, Record<string, number>>;
  preread: string;
  pids_stats: { current?: number; limit?: number };
  cpu_stats: { cpu_usage: { total_usage: number }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats: { cpu_usage: { total_usage: number }; system_cpu_usage?: number };
  memory_stats: { usage?: number; limit?: number; stats?: Record<string, number> };
  name: string;
  id: string;
}

describe('docker top, stats and update', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox();
  });
  after(async () => {
    await teardown(d);
  });

  const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
  const run = async (...args: string[]) => {
    const r = await d.docker(['run', '-d', ...args]);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  };

  test('top: ps -ef rows of the container only, ps arguments, dockerd\'s errors, and a top event', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const id = await run('--name', 'top-a', 'busybox', 'sh', '-c', 'sleep 1001 & sleep 1002');
    const top = await d.docker(['top', 'top-a']);
    assert.equal(top.code, 0, top.stderr);
    const [head, ...rows] = top.stdout.trim().split('\n');
    assert.deepEqual(head.trim().split(/\s+/), ['UID', 'PID', 'PPID', 'C', 'STIME', 'TTY', 'TIME', 'CMD']);
    assert.deepEqual(rows.map((r) => r.trim().split(/\s{2,}/).at(-1)).sort(), ['sleep 1001', 'sleep 1002']);

    const custom = (await d.request('GET', '/containers/top-a/top?ps_args=-o%20pid,comm')).json() as { Titles: string[]; Processes: string[][] };
    assert.deepEqual(custom.Titles, ['PID', 'COMMAND']);
    assert.deepEqual(custom.Processes.map((p) => p[1]), ['sleep', 'sleep']);
    const pid = String((await inspectContainer(d, id)).State.Pid);
    assert.ok(custom.Processes.some((p) => p[0] === pid), `the init ${pid} is among ${JSON.stringify(custom.Processes)}`);
    const cli = await d.docker(['top', 'top-a', '-o', 'pid,comm']);
    assert.match(cli.stdout, /^PID\s+COMMAND\n/);

    const errors: Array<[string, number, string]> = [
      ['-o%20comm', 500, "Couldn't find PID field in ps output"],
      ['--bogus', 500, 'ps: error: unknown gnu long option'],
      ['-o%20pid%20%20-o%20comm', 500, 'ps: error: garbage option'],
      ['-o%20user=PID', 500, 'specifying "user=PID" is not allowed'],
    ];
    for (const [args, status, message] of errors) {
      const r = await d.request('GET', `/containers/top-a/top?ps_args=${args}`);
      assert.equal(r.status, status, args);
      assert.deepEqual(r.json(), { message }, args);
    }
    // the arguments are checked before the container is looked up
    assert.equal((await d.request('GET', '/containers/nosuch/top?ps_args=-o%20user=PID')).status, 500);
    assert.equal((await d.request('GET', '/containers/nosuch/top')).status, 404);

    const stopped = (await d.docker(['create', 'busybox', 'true'])).stdout.trim();
    const r = await d.request('GET', `/containers/${stopped}/top`);
    assert.equal(r.status, 409);
    assert.deepEqual(r.json(), { message: `Container ${stopped} is not running` });

    // one event for each answered top (3), none for a refused one
    const events = await d.docker(['events', '--since', String(since), '--until', String(Math.floor(Date.now() / 1000) + 1), '--filter', 'container=top-a', '--format', '{{.Action}}']);
    assert.deepEqual(events.stdout.trim().split('\n').filter((a) => a === 'top'), ['top', 'top', 'top']);
  });

  test('stats --no-stream: a memory-filling container shows what it filled, a busy one CPU, with their limits', async () => {
    await run('--name', 'st-mem', '--memory', '200m', 'busybox', 'sh', '-c', 'dd if=/dev/zero of=/dev/shm/fill bs=1M count=40 && echo filled && sleep 1000');
    await run('--name', 'st-cpu', 'busybox', 'sh', '-c', 'while :; do :; done');
    await until('the memory to be filled', async () => ((await d.docker(['logs', 'st-mem'])).stdout.includes('filled') ? true : undefined));
    const r = await d.docker(['stats', '--no-stream', '--format', '{{.Name}} {{.CPUPerc}} {{.MemUsage}} {{.PIDs}}', 'st-mem', 'st-cpu']);
    assert.equal(r.code, 0, r.stderr);
    const rows = new Map(r.stdout.trim().split('\n').map((l) => [l.split(' ')[0], l.split(' ').slice(1)]));
    const [, memUsage, , memLimit] = rows.get('st-mem') ?? [];
    assert.ok(/MiB$/.test(memUsage) && Number.parseFloat(memUsage) >= 40, `usage ${memUsage} holds the 40 MiB written to /dev/shm`);
    assert.equal(memLimit, '200MiB');
    const raw = (await d.request('GET', '/containers/st-mem/stats?stream=false&one-shot=true')).json() as StatsJson;
    assert.ok((raw.memory_stats.usage ?? 0) >= 40 * MiB, `usage ${raw.memory_stats.usage}`);
    assert.equal(raw.memory_stats.limit, 200 * MiB);
    const [cpuPerc] = rows.get('st-cpu') ?? [];
    assert.ok(Number.parseFloat(cpuPerc) > 0, `CPU ${cpuPerc} of a busy loop`);
  });

  test('stats JSON: dockerd\'s fields in its order; two samples, one with one-shot, empty for a stopped container', async () => {
    const id = await run('--name', 'st-json', '--pids-limit', '20', 'busybox', 'sleep', '1000');
    const r = await d.request('GET', '/containers/st-json/stats?stream=false');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.ok(r.body.endsWith('}\n'));
    const s = JSON.parse(r.body) as StatsJson;
    // a container on the default bridge has its interfaces, last, as in dockerd's StatsJSON
    assert.deepEqual(Object.keys(s), [...STATS_KEYS, 'networks']);
    assert.deepEqual(Object.keys(s.networks?.eth0 ?? {}), ['rx_bytes', 'rx_packets', 'rx_errors', 'rx_dropped', 'tx_bytes', 'tx_packets', 'tx_errors', 'tx_dropped']);
    assert.equal(s.name, '/st-json');
    assert.equal(s.id, id);
    assert.deepEqual(s.pids_stats, { current: 1, limit: 20 });
    assert.ok(Date.parse(s.read) > Date.parse(s.preread) && s.preread !== '0001-01-01T00:00:00Z');
    assert.ok((s.cpu_stats.system_cpu_usage ?? 0) > (s.precpu_stats.system_cpu_usage ?? 0));
    assert.ok((s.cpu_stats.online_cpus ?? 0) >= 1);
    assert.ok((s.memory_stats.usage ?? 0) > 0 && (s.memory_stats.limit ?? 0) > 0);
    assert.equal('total_rss' in (s.memory_stats.stats ?? {}), !unified);

    const one = (await d.request('GET', '/containers/st-json/stats?stream=false&one-shot=true')).json() as StatsJson;
    assert.equal(one.preread, '0001-01-01T00:00:00Z');
    assert.deepEqual(one.precpu_stats, { cpu_usage: { total_usage: 0, usage_in_kernelmode: 0, usage_in_usermode: 0 }, throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 } });
    // before 1.41 one-shot is not known: the CPU figures are primed
    const old = (await d.request('GET', '/v1.40/containers/st-json/stats?stream=false&one-shot=true')).json() as StatsJson;
    assert.notEqual(old.preread, '0001-01-01T00:00:00Z');

    const both = await d.request('GET', '/containers/st-json/stats?stream=true&one-shot=true');
    assert.equal(both.status, 400);
    assert.deepEqual(both.json(), { message: 'cannot have stream=true and one-shot=true' });
    assert.equal((await d.request('GET', '/containers/nosuch/stats?stream=true&one-shot=true')).status, 404);

    const stoppedId = (await d.docker(['create', '--name', 'st-stopped', 'busybox', 'true'])).stdout.trim();
    const empty = (await d.request('GET', '/containers/st-stopped/stats?stream=false')).json() as Record<string, unknown>;
    assert.deepEqual(empty.memory_stats, {});
    assert.deepEqual(empty.pids_stats, {});
    assert.equal(empty.read, '0001-01-01T00:00:00Z');
    assert.equal((empty.blkio_stats as Record<string, unknown>).io_service_bytes_recursive, null);
    assert.equal(empty.id, stoppedId);
  });

  test('stats stream: one JSON line per sample, each with the one before as pre', async () => {
    await run('--name', 'st-stream', 'busybox', 'sleep', '1000');
    const { lines } = await firstLines(d.socket, '/v1.41/containers/st-stream/stats', 3);
    const frames = lines.map((l) => JSON.parse(l) as StatsJson);
    assert.equal(frames[0].preread, '0001-01-01T00:00:00Z');
    assert.equal(frames[1].preread, frames[0].read);
    assert.equal(frames[2].preread, frames[1].read);
    assert.equal(frames[2].precpu_stats.cpu_usage.total_usage, frames[1].cpu_stats.cpu_usage.total_usage);
    // the daemon goes on serving after the client hung up
    assert.equal((await d.request('GET', '/_ping')).status, 200);
  });

  // found by the API fuzzer (test/fuzz): a client that left between samples made the stream's end
  // look finished, and its abort was logged as an error after the response started
  test('stats stream: clients that leave at any moment are no error of the daemon\'s', async () => {
    await run('--name', 'st-leave', 'busybox', 'sleep', '1000');
    const { default: net } = await import('node:net');
    for (const waitMs of [0, 0, 0, 30, 30, 30, 300, 300, 1100, 1100, 1500, 1500]) {
      const c = net.connect(d.socket);
      c.on('error', () => {});
      c.write('GET /containers/st-leave/stats HTTP/1.1\r\nHost: berth\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      c.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.deepEqual(d.loggedErrors(), []);
  });

  test('stats stream of a stopped container: empty frames until the container is removed, then the end', async () => {
    await d.docker(['create', '--name', 'st-gone', 'busybox', 'true']);
    const whole = d.request('GET', '/containers/st-gone/stats', { timeoutMs: 30000 });
    const { lines } = await firstLines(d.socket, '/v1.41/containers/st-gone/stats', 1);
    assert.equal((JSON.parse(lines[0]) as StatsJson).read, '0001-01-01T00:00:00Z');
    assert.equal((await d.docker(['rm', 'st-gone'])).code, 0);
    const r = await whole;
    assert.equal(r.status, 200);
    const frames = r.body.trim().split('\n').map((l) => JSON.parse(l) as StatsJson);
    assert.ok(frames.length >= 1 && frames.every((f) => f.read === '0001-01-01T00:00:00Z' && f.name === '/st-gone'));
  });

  test('update: limits reach the running container\'s cgroup and inspect; a stopped one gets them at start', async () => {
    const id = await run('--name', 'up-a', 'busybox', 'sleep', '1000');
    const memOnly = await d.docker(['update', '--memory', '64m', 'up-a']);
    assert.equal(memOnly.code, 1);
    assert.match(memOnly.stderr, new RegExp(`Cannot update container ${id}: Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time`));

    const r = await d.docker(['update', '--memory', '64m', '--memory-swap', '128m', '--pids-limit', '50', '--cpus', '0.5', 'up-a']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(cgroupFile(id, ['memory', 'memory.limit_in_bytes'], 'memory.max'), String(64 * MiB));
    assert.equal(cgroupFile(id, ['pids', 'pids.max'], 'pids.max'), '50');
    assert.equal(cgroupFile(id, ['cpu', 'cpu.cfs_quota_us'], 'cpu.max'), unified ? '50000 100000' : '50000');
    const hc = (await inspectContainer(d, 'up-a')).HostConfig;
    assert.deepEqual([hc.Memory, hc.MemorySwap, hc.PidsLimit, hc.NanoCpus], [64 * MiB, 128 * MiB, 50, 5e8]);
    const stats = (await d.request('GET', '/containers/up-a/stats?stream=false&one-shot=true')).json() as StatsJson;
    assert.equal(stats.memory_stats.limit, 64 * MiB);

    const quota = await d.request('POST', '/containers/up-a/update', { json: { CpuQuota: 20000 } });
    assert.equal(quota.status, 409);
    assert.deepEqual(quota.json(), { message: `Cannot update container ${id}: Conflicting options: CPU Quota cannot be updated as NanoCPUs has already been set` });
    // runc refuses: the record keeps what it had
    const shares = await d.request('POST', '/containers/up-a/update', { json: { CpuShares: 1 } });
    assert.equal(shares.status, 500);
    assert.match((shares.json() as { message: string }).message, new RegExp(`^Cannot update container ${id}: .*cpu-shares`));
    assert.equal((await inspectContainer(d, 'up-a')).HostConfig.CpuShares, 0);

    const stopped = (await d.docker(['create', '--name', 'up-b', 'busybox', 'sleep', '1000'])).stdout.trim();
    const later = await d.request('POST', '/containers/up-b/update', { json: { Memory: 32 * MiB, MemorySwap: -1 } });
    assert.equal(later.status, 200);
    assert.deepEqual(later.json(), { Warnings: null });
    assert.equal((await d.docker(['start', 'up-b'])).code, 0);
    assert.equal(cgroupFile(stopped, ['memory', 'memory.limit_in_bytes'], 'memory.max'), String(32 * MiB));
  });

  test('update --restart: the new policy restarts the container; AutoRemove refuses one', async () => {
    await d.docker(['create', '--name', 'up-r', 'busybox', 'sh', '-c', 'exit 3']);
    const r = await d.docker(['update', '--restart', 'on-failure:2', 'up-r']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await inspectContainer(d, 'up-r')).HostConfig.RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 2 });
    await d.docker(['start', 'up-r']);
    await until('two restarts', async () => {
      const c = await inspectContainer(d, 'up-r');
      return c.RestartCount === 2 && c.State.Status === 'exited' ? true : undefined;
    });

    const id = await run('--rm', '--name', 'up-rm', 'busybox', 'sleep', '1000');
    const refused = await d.request('POST', '/containers/up-rm/update', { json: { RestartPolicy: { Name: 'always' } } });
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.json(), { message: `Cannot update container ${id}: Restart policy cannot be updated because AutoRemove is enabled for the container` });
  });

  test('update: dockerd\'s 400s, 404 and 500s, warnings, and an update event', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await run('--name', 'up-e', 'busybox', 'sleep', '1000');
    const cases: Array<[unknown, number, string]> = [
      [{ Memory: 1000 }, 400, 'Minimum memory limit allowed is 6MB'],
      [{ RestartPolicy: { Name: 'bogus' } }, 400, "invalid restart policy 'bogus'"],
      [{ RestartPolicy: { Name: 'always', MaximumRetryCount: 3 } }, 400, "maximum retry count cannot be used with restart policy 'always'"],
      [{ CpuPeriod: 500 }, 400, 'CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)'],
      [{ Memory: 'x' }, 500, 'json: cannot unmarshal string into Go struct field UpdateConfig.Memory of type int64'],
    ];
    for (const [body, status, message] of cases) {
      const r = await d.request('POST', '/containers/up-e/update', { json: body });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.deepEqual(r.json(), { message }, JSON.stringify(body));
    }
    const empty = await d.request('POST', '/containers/up-e/update');
    assert.equal(empty.status, 500);
    assert.deepEqual(empty.json(), { message: 'EOF' });
    const missing = await d.request('POST', '/containers/nosuch/update', { json: { Memory: 1000 } });
    assert.equal(missing.status, 404);
    const kmem = await d.request('POST', '/containers/up-e/update', { json: { KernelMemory: 64 * MiB } });
    assert.equal(kmem.status, 200);
    assert.ok((json(kmem.body).Warnings as string[]).includes('Specifying a kernel memory limit is deprecated and will be removed in a future release.'));
    // before API 1.40, PidsLimit is ignored
    assert.equal((await d.request('POST', '/v1.25/containers/up-e/update', { json: { PidsLimit: 7 } })).status, 200);
    assert.equal((await inspectContainer(d, 'up-e')).HostConfig.PidsLimit, null);

    const events = await d.docker(['events', '--since', String(since), '--until', String(Math.floor(Date.now() / 1000) + 1), '--filter', 'container=up-e', '--format', '{{.Action}}']);
    assert.deepEqual(events.stdout.trim().split('\n').filter((a) => a === 'update'), ['update', 'update']);
  });
});
