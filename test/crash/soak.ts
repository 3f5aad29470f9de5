// The soak run: the crash run's workload without kills, for a number of minutes, sampling the
// daemon: resident memory and open descriptors (/proc), the disk under its data and exec roots
// (du), its event loop's delay (berth_event_loop_delay_seconds from GET /metrics, as differences
// between scrapes), the latency of GET /_ping from outside, and of the container list under load.
// Before the workload and after it (everything it made removed) the idle daemon is measured the
// same way, `docker ps` too: what the workload left behind shows as the difference.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dockerCli } from '../helpers/docker-cli.js';
import { getJson } from './api-call.js';
import { checkNothingLeft, removeEverything, type Violation } from './checker.js';
import { diskBytes } from './host-state.js';
import { busyboxChains, releaseTarget, Workload, type RunOptions, type WorkloadReport } from './harness.js';
import { SeededRandom } from './seeded-random.js';
import { startTarget, type CrashTarget } from './target.js';

export interface SoakOptions extends RunOptions {
  minutes: number;
  sampleEveryS: number;
  /** a folder where berthd writes a CPU profile (node --cpu-prof) when it stops */
  cpuProfileDir?: string;
}

export interface Usage {
  rssKiB: number;
  fds: number;
  dataRootBytes: number;
  execRootBytes: number;
}

export interface Latency {
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface Idle extends Usage {
  /** GET /containers/json, 50 in a row */
  list: Latency;
  /** `docker ps`, the CLI's whole run, 10 in a row */
  dockerPs: Latency;
}

export interface SoakSample extends Usage {
  minute: number;
  containers: number;
  images: number;
  /** the event loop's delay over the sample's window (berth's histogram): p99, and the share of timers over 50 ms late */
  loopP99Ms: number | null;
  loopOver50msShare: number | null;
  /** GET /_ping every 250 ms from a process of its own, over the window */
  pingP99Ms: number;
  /** GET /containers/json?all=1, 5 in a row at the sample */
  listP50Ms: number;
}

export interface SoakReport extends WorkloadReport {
  minutes: number;
  idleBefore: Idle;
  idleAfter: Idle;
  /** over the whole workload */
  eventLoop: { p99Ms: number | null; over50msShare: number | null; worstWindowP99Ms: number | null; timers: number };
  ping: Latency & { p99Ms: number; count: number };
  /** means of the first and the last quarter of the samples */
  trend: Record<keyof Usage | 'listP50Ms', { firstQuarter: number; lastQuarter: number }>;
  samples: SoakSample[];
  checks: number;
  violations: Violation[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function usageOf(t: CrashTarget): Usage {
  const pid = t.d.proc.pid ?? 0;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    rssKiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0),
    fds: readdirSync(`/proc/${pid}/fd`).length,
    dataRootBytes: diskBytes(t.dataRoot),
    execRootBytes: diskBytes(t.execRoot),
  };
}

/** The q-quantile of the values (the nearest rank), 0 for none. */
export function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

export function latency(ms: number[]): Latency {
  return { p50Ms: round(quantile(ms, 0.5)), p95Ms: round(quantile(ms, 0.95)), maxMs: round(Math.max(0, ...ms)) };
}

const round = (n: number) => Math.round(n * 10) / 10;

async function timed(f: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function listTimes(t: CrashTarget, n: number, query = ''): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await timed(() => getJson(t.socket, `/containers/json${query}`)));
  return times;
}

async function idle(t: CrashTarget): Promise<Idle> {
  await listTimes(t, 5);
  const list = latency(await listTimes(t, 50));
  const ps: number[] = [];
  for (let i = 0; i < 10; i++) {
    ps.push(
      await timed(async () => {
        const r = await dockerCli(['ps'], { env: { DOCKER_HOST: t.d.dockerHost } });
        if (r.code !== 0) throw new Error(`docker ps: ${r.stderr}`);
      }),
    );
  }
  return { ...usageOf(t), list, dockerPs: latency(ps) };
}

/** The event-loop histogram's cumulative buckets (le → count) and count, scraped inside the daemon's namespace. */
interface LoopHistogram {
  buckets: Array<[number, number]>;
  count: number;
}

function scrapeLoop(t: CrashTarget): Promise<LoopHistogram> {
  const script = `const r = await fetch(${JSON.stringify(`http://${t.metricsAddr}/metrics`)}); process.stdout.write(await r.text());`;
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=${t.netns}`, '--', process.execPath, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`scraping the metrics: exit ${code}`));
      const buckets: Array<[number, number]> = [];
      let count = 0;
      for (const line of out.split('\n')) {
        const b = /^berth_event_loop_delay_seconds_bucket\{le="([^"]+)"\} (\d+)/.exec(line);
        if (b && b[1] !== '+Inf') buckets.push([Number(b[1]), Number(b[2])]);
        const c = /^berth_event_loop_delay_seconds_count (\d+)/.exec(line);
        if (c) count = Number(c[1]);
      }
      resolve({ buckets, count });
    });
  });
}

/** The quantile of the observations between two scrapes, interpolated within its bucket as Prometheus' histogram_quantile does. */
export function quantileBetween(a: LoopHistogram, b: LoopHistogram, q: number): number | null {
  const count = b.count - a.count;
  if (count <= 0) return null;
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const [i, [le, n]] of b.buckets.entries()) {
    const cumulative = n - (a.buckets[i]?.[1] ?? 0);
    if (cumulative >= rank) return round((lower + ((le - lower) * (rank - below)) / Math.max(1, cumulative - below)) * 1000);
    lower = le;
    below = cumulative;
  }
  // past the last bound
  return round(lower * 1000);
}

function shareOver(a: LoopHistogram, b: LoopHistogram, bound: number): number | null {
  const count = b.count - a.count;
  if (count <= 0) return null;
  const i = b.buckets.findIndex(([le]) => le === bound);
  const atOrUnder = b.buckets[i][1] - (a.buckets[i]?.[1] ?? 0);
  return Math.round(((count - atOrUnder) / count) * 1e6) / 1e6;
}

/** GET /_ping every 250 ms from a node process of its own; each latency in ms goes to `sample`. */
function startPinger(socket: string, sample: (ms: number) => void): { stop(): Promise<void> } {
  const script = `const http = require('node:http');
const ping = () => {
  const start = process.hrtime.bigint();
  const req = http.get({ socketPath: process.argv[1], path: '/_ping', agent: false }, (res) => {
    res.resume();
    res.on('end', () => { console.log(Number(process.hrtime.bigint() - start) / 1e6); setTimeout(ping, 250); });
  });
  req.on('error', () => setTimeout(ping, 250));
};
ping();`;
  const child = spawn(process.execPath, ['-e', script, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
  let buffer = '';
  child.stdout.on('data', (c: Buffer) => {
    buffer += c.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) if (line !== '') sample(Number(line));
  });
  const exited = new Promise((r) => child.once('exit', r));
  return {
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  let t: CrashTarget | undefined;
  try {
    t = await startTarget({ clients: opts.clients, metricsAddr: '127.0.0.1:9323', cpuProfileDir: opts.cpuProfileDir });
    const target = t;
    const idleBefore = await idle(target);
    log(`idle before: RSS ${idleBefore.rssKiB} KiB, ${idleBefore.fds} fds, data root ${idleBefore.dataRootBytes} B, list p50 ${idleBefore.list.p50Ms} ms, docker ps p50 ${idleBefore.dockerPs.p50Ms} ms`);
    const w = new Workload(target, new SeededRandom(opts.seed), opts.clients, log);
    const first = await scrapeLoop(target);
    let previous = first;
    const pings: number[] = [];
    let windowPings: number[] = [];
    // a process of its own: the clients' work in this one must not count as the daemon's latency
    const pinger = startPinger(target.socket, (ms) => {
      pings.push(ms);
      windowPings.push(ms);
    });
    const samples: SoakSample[] = [];
    const started = Date.now();
    const end = started + opts.minutes * 60_000;
    w.start();
    while (Date.now() < end) {
      await sleep(Math.min(opts.sampleEveryS * 1000, Math.max(0, end - Date.now())));
      const now = await scrapeLoop(target);
      const list = latency(await listTimes(target, 5, '?all=1'));
      const containers = (await getJson<unknown[]>(target.socket, '/containers/json?all=1')).length;
      const images = (await getJson<unknown[]>(target.socket, '/images/json?all=1')).length;
      const s: SoakSample = {
        minute: round((Date.now() - started) / 60_000),
        ...usageOf(target),
        containers,
        images,
        loopP99Ms: quantileBetween(previous, now, 0.99),
        loopOver50msShare: shareOver(previous, now, 0.05),
        pingP99Ms: round(quantile(windowPings, 0.99)),
        listP50Ms: list.p50Ms,
      };
      windowPings = [];
      previous = now;
      samples.push(s);
      log(`${s.minute} min: RSS ${s.rssKiB} KiB, ${s.fds} fds, data ${(s.dataRootBytes / 2 ** 20).toFixed(1)} MiB, exec ${(s.execRootBytes / 2 ** 10).toFixed(0)} KiB, ${s.containers} containers, ${s.images} images, loop p99 ${s.loopP99Ms} ms, ping p99 ${s.pingP99Ms} ms, list p50 ${s.listP50Ms} ms, ${w.ledger.totals().acknowledged} ops`);
    }
    await w.stop();
    await pinger.stop();
    const last = await scrapeLoop(target);
    w.at = 'end';
    for (const m of w.models) await w.checker.reconcile(m);
    await removeEverything(w.checker, target);
    await sleep(5000);
    const idleAfter = await idle(target);
    log(`idle after: RSS ${idleAfter.rssKiB} KiB, ${idleAfter.fds} fds, data root ${idleAfter.dataRootBytes} B, list p50 ${idleAfter.list.p50Ms} ms, docker ps p50 ${idleAfter.dockerPs.p50Ms} ms`);
    w.collectDaemonErrors();
    await target.d.stop('SIGTERM', { expectErrors: true });
    w.collectDaemonErrors();
    checkNothingLeft(w.checker, target, await busyboxChains());
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const trendOf = (k: keyof Usage | 'listP50Ms') => ({ firstQuarter: Math.round(mean(samples.slice(0, quarter).map((s) => s[k]))), lastQuarter: Math.round(mean(samples.slice(-quarter).map((s) => s[k]))) });
    const windows = samples.map((s) => s.loopP99Ms).filter((v): v is number => v !== null);
    return {
      ...w.report(),
      seed: opts.seed,
      minutes: opts.minutes,
      idleBefore,
      idleAfter,
      eventLoop: { p99Ms: quantileBetween(first, last, 0.99), over50msShare: shareOver(first, last, 0.05), worstWindowP99Ms: windows.length === 0 ? null : Math.max(...windows), timers: last.count - first.count },
      ping: { ...latency(pings), p99Ms: round(quantile(pings, 0.99)), count: pings.length },
      trend: { rssKiB: trendOf('rssKiB'), fds: trendOf('fds'), dataRootBytes: trendOf('dataRootBytes'), execRootBytes: trendOf('execRootBytes'), listP50Ms: trendOf('listP50Ms') },
      samples,
      checks: w.checker.checkCount,
      violations: w.checker.violations,
    };
  } finally {
    await releaseTarget(t);
  }
}
