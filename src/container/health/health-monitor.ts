// One container's health checks on a clock, as dockerd's monitor() runs them (moby v20.10.27
// daemon/health.go): the first probe an Interval after start, each next one an Interval after the
// previous one ended, so probes never overlap however long one takes. A probe over its Timeout is
// aborted (the probe kills its process), recorded at once as exit code -1 "Health check exceeded
// timeout (30s)", and waited for before the next interval begins, so dying probes never pile up.
// A probe that fails to run at all is recorded as -1 with its error's message.
import type { HealthConfig } from '../config/types.js';
import { EngineError } from '../../errors.js';
import { healthTimings, probeCommand, recordProbeResult, startingHealth, type HealthState, type HealthTimings, type ProbeResult } from './health-check.js';

export type { HealthLogEntry, HealthState } from './health-check.js';

/** Runs cmd in the container, killing it when signal aborts; its exit code and output (at most 4096 bytes, LimitedOutput). */
export type HealthProbe = (cmd: string[], timeoutMs: number, signal: AbortSignal) => Promise<{ exitCode: number; output: string }>;

export interface HealthMonitorOptions {
  /** merged with the image's; Test neither empty nor NONE */
  config: HealthConfig;
  /** the container's Config.Shell, for CMD-SHELL */
  shell?: string[] | null;
  probe: HealthProbe;
  /**
   * After each result; statusChanged is when dockerd publishes health_status. It must not throw:
   * persisting and publishing, and logging their failures, are the caller's.
   */
  onChange: (state: HealthState, statusChanged: boolean) => void;
  /** the health to go on from; startingHealth() by default */
  initial?: HealthState;
  /** the container's StartedAt, from which StartPeriod runs; the time of start() by default */
  startedAt?: Date;
  now?: () => Date;
}

export class HealthMonitor {
  private readonly cmd: string[];
  private readonly timings: HealthTimings;
  private readonly probe: HealthProbe;
  private readonly onChange: HealthMonitorOptions['onChange'];
  private readonly now: () => Date;
  private startedAt: Date | undefined;
  private current: HealthState;
  private running = false;
  /** one per start(), so that a probe left from before a stop() neither records nor schedules */
  private generation = 0;
  /** cancels the wait for the next probe */
  private cancelWait: (() => void) | undefined;
  private inFlight: { abort: AbortController; settled: Promise<void> } | undefined;

  constructor(opts: HealthMonitorOptions) {
    const cmd = probeCommand(opts.config, opts.shell);
    if (cmd === undefined || cmd.length === 0) throw new EngineError('system', `no health check to run for Test ${JSON.stringify(opts.config.Test)}`);
    this.cmd = cmd;
    this.timings = healthTimings(opts.config);
    this.probe = opts.probe;
    this.onChange = opts.onChange;
    this.now = opts.now ?? (() => new Date());
    this.startedAt = opts.startedAt;
    this.current = opts.initial ?? startingHealth();
  }

  /** The health as of the last result. */
  get state(): HealthState {
    return { ...this.current, Log: this.current.Log.map((e) => ({ ...e })) };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const generation = ++this.generation;
    this.startedAt ??= this.now();
    // a probe aborted by stop() may still be ending: the interval starts after it
    void (this.inFlight?.settled ?? Promise.resolve()).then(() => {
      if (generation === this.generation && this.running) this.schedule(generation);
    });
  }

  /** Stops the checks; a probe under way is aborted and its result dropped. Resolves once it has ended. */
  stop(): Promise<void> {
    this.running = false;
    this.cancelWait?.();
    this.cancelWait = undefined;
    if (!this.inFlight) return Promise.resolve();
    this.inFlight.abort.abort(new EngineError('system', 'health checks stopped'));
    return this.inFlight.settled;
  }

  private schedule(generation: number): void {
    this.cancelWait = after(this.timings.intervalMs, () => {
      this.cancelWait = undefined;
      void this.runProbe(generation);
    });
  }

  private async runProbe(generation: number): Promise<void> {
    const start = this.now();
    const abort = new AbortController();
    const current = () => generation === this.generation && this.running;
    let recorded = false;
    const record = (result: Omit<ProbeResult, 'start'>) => {
      // a result that comes after a timeout, or after stop(), is dropped
      if (recorded || !current()) return;
      recorded = true;
      this.handle({ start, ...result });
    };
    const cancelTimeout = after(this.timings.timeoutMs, () => {
      record({ end: this.now(), exitCode: -1, output: this.timings.timeoutMessage });
      abort.abort(new EngineError('system', this.timings.timeoutMessage));
    });
    const settled = this.probe(this.cmd, this.timings.timeoutMs, abort.signal).then(
      (r) => record({ end: this.now(), exitCode: r.exitCode, output: r.output }),
      (err: unknown) => record({ end: this.now(), exitCode: -1, output: err instanceof Error ? err.message : String(err) }),
    );
    const inFlight = { abort, settled };
    this.inFlight = inFlight;
    await settled;
    cancelTimeout();
    if (this.inFlight === inFlight) this.inFlight = undefined;
    if (current()) this.schedule(generation);
  }

  private handle(result: ProbeResult): void {
    const before = this.current.Status;
    this.current = recordProbeResult(this.current, result, { timings: this.timings, startedAt: this.startedAt ?? result.start });
    this.onChange(this.state, this.current.Status !== before);
  }
}

/** Node's timers fire at once beyond this (about 24.8 days); Intervals may be longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls fn after ms, however long; the function returned cancels it. */
function after(ms: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout;
  const wait = (left: number) => {
    timer = setTimeout(() => (left > MAX_TIMER_MS ? wait(left - MAX_TIMER_MS) : fn()), Math.min(left, MAX_TIMER_MS));
  };
  wait(ms);
  return () => clearTimeout(timer);
}
