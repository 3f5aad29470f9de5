// The crash run and the soak run over the same workload (workload.ts) against one berthd
// (target.ts). Crash: at seeded random moments the daemon is killed with SIGKILL, restarted on
// the same roots, and checked (checker.ts) before the clients go on; at the end everything is
// removed through the API, the daemon stopped, and the host checked for anything left. Soak: the
// workload without kills for a while, sampling the daemon's memory, descriptors, event-loop delay,
// its disk, and the latency of the container list (soak.ts).
import { createHash } from 'node:crypto';
import type { Berthd } from '../helpers/berthd.js';
import { busyboxLayer } from '../helpers/busybox-image.js';
import { sweep } from '../helpers/containers.js';
import { removeTestNetns } from '../helpers/netns.js';
import { Checker, checkNothingLeft, removeEverything, type Violation } from './checker.js';
import { Gate } from './gate.js';
import { ClientModel, Ledger, type KindCounts, type OpKind } from './model.js';
import { SeededRandom } from './seeded-random.js';
import { daemonUp, killDaemon, restartDaemon, startTarget, type CrashTarget } from './target.js';
import { Client, type WorkloadEnv } from './workload.js';

export interface RunOptions {
  seed: number;
  clients: number;
  log?: (line: string) => void;
}

export interface Anomaly {
  at: string;
  what: string;
  detail: string;
}

export interface WorkloadReport {
  seed: number;
  clients: number;
  seconds: number;
  operations: Record<OpKind, KindCounts>;
  totals: KindCounts;
  failures: Array<{ failure: string; count: number; example: string }>;
  /** what the daemon got wrong while it ran: unexpected failures, wrong answers, cut connections, its own exits */
  anomalies: Anomaly[];
  /** lines berthd logged at level error, by daemon */
  daemonErrors: string[];
}

export interface CrashReport extends WorkloadReport {
  kills: number;
  restartMs: { median: number; max: number };
  checks: { total: number; byName: Record<string, number> };
  /** the objects operations left uncertain, by operation: found whole, or absent */
  settled: Record<string, { whole: number; absent: number; partial: number }>;
  strays: { containers: number; images: number };
  violations: Violation[];
}

/** The clients, their shared environment and the bookkeeping around one target. */
export class Workload {
  readonly ledger = new Ledger();
  readonly models: ClientModel[];
  readonly clients: Client[];
  readonly gate: Gate;
  readonly anomalies: Anomaly[] = [];
  readonly daemonErrors: string[] = [];
  readonly checker: Checker;
  generation = 0;
  at = 'start';
  private stopped = false;
  private collected: { daemon?: Berthd; count: number } = { count: 0 };
  private loops: Promise<void>[] = [];
  private readonly started = Date.now();

  constructor(
    readonly t: CrashTarget,
    readonly rng: SeededRandom,
    clients: number,
    private readonly log: (line: string) => void,
  ) {
    this.models = Array.from({ length: clients }, (_, i) => new ClientModel(i));
    this.gate = new Gate(clients);
    this.checker = new Checker(t, this.models, rng.fork());
    const env: WorkloadEnv = {
      socket: t.socket,
      gate: () => this.gate.pass(),
      generation: () => this.generation,
      daemonUp: () => daemonUp(t),
      stopping: () => this.stopped,
      ledger: this.ledger,
      pullable: (i) => t.pullable.get(i) ?? [],
      anomaly: (what, detail) => this.anomaly(what, detail),
      reconcile: (m) => this.checker.reconcile(m),
    };
    this.clients = this.models.map((m) => new Client(m, rng.fork(), env));
  }

  anomaly(what: string, detail: string): void {
    this.anomalies.push({ at: this.at, what, detail });
    this.log(`ANOMALY (${this.at}) ${what}: ${detail.slice(0, 300)}`);
  }

  start(): void {
    this.loops = this.clients.map((c) =>
      c.loop().then(
        () => this.gate.done(),
        (err: unknown) => {
          this.anomaly('a client stopped on an error of the harness', (err as Error).stack ?? String(err));
          this.gate.done();
        },
      ),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.gate.open();
    await Promise.all(this.loops);
  }

  /** The daemon's logged errors so far, kept before it is replaced. */
  collectDaemonErrors(): void {
    const errors = this.t.d.loggedErrors();
    const from = this.collected.daemon === this.t.d ? this.collected.count : 0;
    this.daemonErrors.push(...errors.slice(from).map((l) => `[daemon ${this.t.starts}] ${l}`));
    this.collected = { daemon: this.t.d, count: errors.length };
  }

  report(): WorkloadReport {
    return {
      seed: 0,
      clients: this.clients.length,
      seconds: Math.round((Date.now() - this.started) / 1000),
      operations: this.ledger.byKind,
      totals: this.ledger.totals(),
      failures: [...this.ledger.failures.entries()].map(([failure, f]) => ({ failure, ...f })),
      anomalies: this.anomalies,
      daemonErrors: this.daemonErrors,
    };
  }

  /** The final cleanup and the host checked once the daemon stopped. */
  async finish(): Promise<void> {
    const c = this.checker;
    for (const m of this.models) await c.reconcile(m);
    await removeEverything(c, this.t);
    this.collectDaemonErrors();
    await this.t.d.stop('SIGTERM', { expectErrors: true });
    // what the daemon logged while it stopped
    this.collectDaemonErrors();
    checkNothingLeft(c, this.t, await busyboxChains());
  }
}

/** The layer directories of the busybox image (one layer: its chain ID is its diff ID). */
export async function busyboxChains(): Promise<string[]> {
  return [createHash('sha256').update(await busyboxLayer()).digest('hex')];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Releases what the run made, whatever state it ended in: the registry, the daemon, conmons and mounts, the namespace. */
export async function releaseTarget(t: CrashTarget | undefined): Promise<void> {
  if (t === undefined) return;
  await t.registry.close().catch(() => undefined);
  if (daemonUp(t)) await killDaemon(t);
  sweep(t.base);
  removeTestNetns(t.netns);
}

export interface CrashOptions extends RunOptions {
  kills: number;
  /** the time the workload runs between a restart's checks and the next kill: a seeded pick in [min, max] */
  minRunMs: number;
  maxRunMs: number;
}

export async function runCrash(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => {});
  const rng = new SeededRandom(opts.seed);
  let t: CrashTarget | undefined;
  try {
    t = await startTarget({ clients: opts.clients });
    const target = t;
    const w = new Workload(target, rng, opts.clients, log);
    const restarts: number[] = [];
    w.start();
    try {
      for (let k = 1; k <= opts.kills; k++) {
        const runMs = rng.int(opts.minRunMs, opts.maxRunMs);
        const diedOnItsOwn = await Promise.race([sleep(runMs).then(() => false), target.d.exited.then(() => true)]);
        w.gate.close();
        w.generation++;
        if (diedOnItsOwn) w.anomaly('the daemon exited on its own', target.d.log.split('\n').slice(-20).join('\n'));
        await killDaemon(target);
        w.collectDaemonErrors();
        await w.gate.idle();
        const before = Date.now();
        w.at = `after kill ${k}`;
        await restartDaemon(target);
        restarts.push(Date.now() - before);
        await w.checker.afterRestart(w.at);
        log(`kill ${k}/${opts.kills} after ${runMs} ms: restart ${restarts.at(-1)} ms, ${w.ledger.totals().acknowledged} operations acknowledged, ${w.checker.checkCount} checks, ${w.checker.violations.length} violations, ${w.anomalies.length} anomalies`);
        w.gate.open();
      }
    } catch (err) {
      // the daemon would not start again, or died under the checks: nothing further can be checked
      w.checker.violations.push({ at: w.at, what: 'the run could not go on', detail: (err as Error).stack ?? String(err) });
      log(`STOPPED (${w.at}): ${(err as Error).message.slice(0, 2000)}`);
    }
    await w.stop();
    if (w.checker.violations.every((v) => v.what !== 'the run could not go on')) {
      w.at = 'end';
      await w.finish();
    }
    restarts.sort((a, b) => a - b);
    const c = w.checker;
    return {
      ...w.report(),
      seed: opts.seed,
      kills: opts.kills,
      restartMs: { median: restarts[Math.floor(restarts.length / 2)] ?? 0, max: restarts.at(-1) ?? 0 },
      checks: { total: c.checkCount, byName: Object.fromEntries([...c.checks.entries()].sort()) },
      settled: Object.fromEntries([...c.settled.entries()].sort()),
      strays: c.strays,
      violations: c.violations,
    };
  } finally {
    await releaseTarget(t);
  }
}
