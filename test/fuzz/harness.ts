// The fuzz run: a berthd of its own (temporary socket and data root, its own network namespace,
// an empty plugins folder), a few objects for requests to reach (busybox, a created and a running
// container, an exec, a volume, a network, a second tag), then seeded fuzzed requests over every
// operation of the spec, then the transport cases, and at the end the daemon's memory and file
// descriptors against the baseline and a `docker run --rm busybox true`.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import fc from 'fast-check';
import { Berthd, tempDir } from '../helpers/berthd.js';
import { loadBusybox } from '../helpers/busybox-image.js';
import { sweep } from '../helpers/containers.js';
import { send } from './client.js';
import { checkResponse, describeRequest, type Failure } from './oracle.js';
import { buildContexts, requestArbitrary, type FuzzRequest, type Known } from './request-arbitrary.js';
import { loadSpec } from './spec.js';
import { transportCases, type TransportOptions } from './transport.js';

export interface FuzzOptions {
  seed: number;
  runs: number;
  /** only the operations whose id matches */
  only?: RegExp;
  /** the transport cases' sizes: the short run inside npm test takes small ones */
  transport: TransportOptions;
  headTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface Usage {
  rssKiB: number;
  fds: number;
  /** what the descriptors point at (socket:[…], pipe:[…], files), for telling a leak's kind */
  fdTargets?: string[];
}

export interface FuzzReport {
  seed: number;
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<string, number>;
  /** requests that had no answer head in the time allowed */
  noHead: number;
  transportCases: string[];
  failures: Failure[];
  baseline: Usage;
  peak: Usage;
  after: Usage;
  dockerRun: { code: number | null; stderr: string };
}

/** The process's resident memory and open descriptors (zero when it is gone). */
export function usage(pid: number): Usage {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const fds = readdirSync(`/proc/${pid}/fd`);
    const fdTargets = fds.map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).replace(/\[\d+\]$/, '[]');
      } catch {
        return 'gone';
      }
    });
    return { rssKiB, fds: fds.length, fdTargets: fdTargets.sort() };
  } catch {
    return { rssKiB: 0, fds: 0 };
  }
}

/**
 * Usage with none of this process's own idle connections open: the test helpers' requests go
 * through Node's global agent, which keeps connections alive, and the daemon counts their sockets.
 */
async function settledUsage(pid: number): Promise<Usage> {
  http.globalAgent.destroy();
  await sleep(200);
  return usage(pid);
}

const PING = { operationId: 'SystemPing', method: 'GET', path: '/_ping', headers: {}, bodyKind: 'none' } satisfies FuzzRequest;

async function ok(d: Berthd, method: string, urlPath: string, json?: unknown): Promise<string> {
  const r = await d.request(method, urlPath, { json, timeoutMs: 30000 });
  if (r.status >= 300 && r.status !== 304 && r.status !== 409) throw new Error(`${method} ${urlPath}: ${r.status} ${r.body}`);
  return r.body;
}

/** The objects requests reach; made again when the fuzzer removed or stopped them. */
async function ensureFixtures(d: Berthd): Promise<Known['execId']> {
  const images = await d.request('GET', '/images/busybox/json');
  if (images.status === 404) await loadBusybox(d);
  await ok(d, 'POST', '/images/busybox/tag?repo=fuzz-img&tag=1');
  await ok(d, 'POST', '/containers/create?name=fuzz-c', { Image: 'busybox', Cmd: ['true'] });
  await ok(d, 'POST', '/containers/create?name=fuzz-run', { Image: 'busybox', Cmd: ['sleep', '1000000'] });
  const run = JSON.parse(await ok(d, 'GET', '/containers/fuzz-run/json')) as { State: { Status: string } };
  if (run.State.Status === 'paused') await ok(d, 'POST', '/containers/fuzz-run/unpause');
  if (run.State.Status !== 'running' && run.State.Status !== 'paused') await ok(d, 'POST', '/containers/fuzz-run/start');
  await ok(d, 'POST', '/volumes/create', { Name: 'fuzz-v' });
  await ok(d, 'POST', '/networks/create', { Name: 'fuzz-n', CheckDuplicate: true });
  const exec = JSON.parse(await ok(d, 'POST', '/containers/fuzz-run/exec', { Cmd: ['true'] })) as { Id: string };
  return exec.Id;
}

async function removeContainers(d: Berthd): Promise<void> {
  const r = await d.request('GET', '/containers/json?all=1', { timeoutMs: 30000 });
  for (const c of JSON.parse(r.body) as Array<{ Id: string }>) await d.request('DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 60000 });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the daemon and makes its fixtures. */
export async function startTarget(): Promise<Berthd> {
  const pluginsDir = tempDir('berth-fuzz-plugins-');
  const d = await Berthd.start({ netns: 'own', args: ['--plugins-dir', pluginsDir] });
  await loadBusybox(d);
  return d;
}

export async function runFuzz(d: Berthd, opts: FuzzOptions): Promise<FuzzReport> {
  const log = opts.log ?? (() => {});
  const pid = d.proc.pid ?? 0;
  const spec = loadSpec();
  const ops = spec.operations.filter((op) => opts.only === undefined || opts.only.test(op.operationId));
  const known: Known = { execId: await ensureFixtures(d), tars: await buildContexts() };
  const arbitrary = fc.oneof(...ops.map((op) => requestArbitrary(op, spec, known)));

  // the baseline: after the fixtures and a warm-up, so what the first requests load (modules, caches) is in it
  for (let i = 0; i < 20; i++) await send(d.socket, PING, { headTimeoutMs: 5000, streamMs: 1000 });
  await d.request('GET', '/containers/json?all=1');
  const baseline = await settledUsage(pid);
  let peak = baseline;
  log(`baseline: RSS ${baseline.rssKiB} KiB, ${baseline.fds} fds`);

  const failures = new Map<string, Failure>();
  const fail = (f: Failure) => {
    if (!failures.has(f.kind)) {
      failures.set(f.kind, f);
      log(`FAILURE ${f.kind}\n  ${JSON.stringify(f.request)}\n  ${f.detail.slice(0, 500)}`);
    }
  };
  const report: Omit<FuzzReport, 'baseline' | 'peak' | 'after' | 'dockerRun' | 'failures'> = { seed: opts.seed, requests: 0, byOperation: {}, byStatus: {}, noHead: 0, transportCases: [] };
  const alive = () => d.proc.exitCode === null && d.proc.signalCode === null;

  if (opts.runs > 0) await fc.assert(
    fc.asyncProperty(arbitrary, async (req) => {
      if (!alive()) return;
      const res = await send(d.socket, req, { headTimeoutMs: opts.headTimeoutMs ?? 3000, streamMs: 300 });
      report.requests++;
      report.byOperation[req.operationId] = (report.byOperation[req.operationId] ?? 0) + 1;
      const statusKey = res.cut === 'no-head' ? 'no head' : res.error !== undefined ? 'error' : String(res.status);
      report.byStatus[statusKey] = (report.byStatus[statusKey] ?? 0) + 1;
      if (res.cut === 'no-head') report.noHead++;
      for (const f of checkResponse(req, res)) fail({ ...f, request: describeRequest(req) });
      if (!alive()) fail({ kind: `daemon died after ${req.operationId}`, detail: d.log.split('\n').slice(-30).join('\n'), request: describeRequest(req) });
      if (report.requests % 20 === 0) {
        const u = usage(pid);
        if (u.rssKiB > peak.rssKiB) peak = { ...u };
        if (u.fds > peak.fds) peak = { ...peak, fds: u.fds };
        known.execId = await ensureFixtures(d).catch((err: Error) => {
          fail({ kind: 'fixtures could not be made again', detail: err.message, request: describeRequest(req) });
          return known.execId;
        });
        log(`${report.requests} requests, RSS ${u.rssKiB} KiB, ${u.fds} fds, ${failures.size} distinct failures`);
      }
    }),
    { seed: opts.seed, numRuns: opts.runs, endOnFailure: true },
  );

  if (alive()) {
    for (const c of transportCases(d, opts.transport)) {
      log(`transport: ${c.name}`);
      report.transportCases.push(c.name);
      try {
        await c.run();
      } catch (err) {
        fail({ kind: `transport: ${c.name}`, detail: (err as Error).stack ?? String(err), request: { operationId: '-', method: '-', path: '-', headers: {}, bodyKind: c.name } });
      }
      const u = await settledUsage(pid);
      log(`  after it: RSS ${u.rssKiB} KiB, ${u.fds} fds`);
      if (u.rssKiB > peak.rssKiB) peak = { ...peak, rssKiB: u.rssKiB };
      if (u.fds > peak.fds) peak = { ...peak, fds: u.fds };
      if (!alive()) {
        fail({ kind: `daemon died in transport case ${c.name}`, detail: d.log.split('\n').slice(-30).join('\n'), request: { operationId: '-', method: '-', path: '-', headers: {}, bodyKind: c.name } });
        break;
      }
    }
  }

  let after: Usage = { rssKiB: 0, fds: 0 };
  let dockerRun: FuzzReport['dockerRun'] = { code: null, stderr: 'daemon dead' };
  if (alive()) {
    // back to the baseline's objects: what requests made (containers and their conmons) is not a leak
    await removeContainers(d);
    await ensureFixtures(d);
    await sleep(2000);
    after = await settledUsage(pid);
    log(`after: RSS ${after.rssKiB} KiB, ${after.fds} fds (peak RSS ${peak.rssKiB} KiB, ${peak.fds} fds)`);
    await ok(d, 'GET', '/images/busybox/json').catch(() => loadBusybox(d));
    const r = await d.docker(['run', '--rm', 'busybox', 'true'], { timeoutMs: 60000 });
    dockerRun = { code: r.code, stderr: r.stderr };
  }
  // what the daemon logged at error level, and anything on stderr that is not its JSON log (a
  // warning of Node's, a stack of an uncaught exception)
  for (const line of d.loggedErrors()) fail({ kind: `logged error: ${(JSON.parse(line) as { msg?: string }).msg ?? line}`.slice(0, 160), detail: line.slice(0, 2000), request: { operationId: '-', method: '-', path: '-', headers: {}, bodyKind: '-' } });
  const stray = d.log.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));
  if (stray.length > 0) fail({ kind: `output that is not the daemon's JSON log: ${stray[0].slice(0, 120)}`, detail: stray.join('\n').slice(0, 4000), request: { operationId: '-', method: '-', path: '-', headers: {}, bodyKind: '-' } });
  return { ...report, failures: [...failures.values()], baseline, peak, after, dockerRun };
}

/** Removes what the run left and stops the daemon (errors it logged are in the report already). */
export async function stopTarget(d: Berthd): Promise<void> {
  if (d.proc.exitCode === null) await removeContainers(d).catch(() => {});
  await d.stop('SIGTERM', { expectErrors: true });
  sweep(d.dir);
}
