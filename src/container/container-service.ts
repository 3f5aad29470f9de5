// Containers: their records and their lifecycle. Operations on one container run one at a time
// (a queue per container); different containers go in parallel. Each change is persisted before
// it is published in memory or acknowledged. A run's end is noticed by the runner (conmon's exit
// file) and recorded without the queue, so that an operation waiting for it (stop, kill, remove)
// never waits on itself.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { conflict, EngineError, invalidParameter, notModified } from '../errors.js';
import type { Digest } from '../image/digest.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import type { ExitRecord } from '../runtime/exit-files.js';
import { ContainerCommandError } from '../runtime/runtime-errors.js';
import type { ContainerConfig, HostConfig, NetworkingConfig } from './config/types.js';
import type { ParsedMount } from './config/validate-mounts.js';
import type { ContainerEvents } from './container-events.js';
import { registerLinks } from './container-links.js';
import type { ContainerRunner, LostRun } from './container-runner.js';
import type { LogForwarder } from './logs/log-drivers.js';
import { NoSuchContainerError, type ContainerStore } from './container-store.js';
import { canMove, initialState, ZERO_TIME, type BareEnv, type ContainerRecord, type ContainerStatus } from './container-record.js';
import { hasProcess, isActive, notRunningError } from './container-state.js';
import type { HealthProbe } from './health/health-monitor.js';
import { watchHealth, type HealthWatch } from './health/watch-health.js';
import { populateRootfs } from './populate-rootfs.js';
import { restartDelayMs, startsWithDaemon } from './restart-policy.js';
import type { RunSignals } from './run-signals.js';
import { parseSignal as signalNumber } from './config/stop-signal.js';
import { resolveMountPoints } from './spec/resolve-mounts.js';
import type { TaskFileMount } from './task-files.js';
import type { ContainerVolumes } from './container-volumes.js';
import { applyUpdate } from './update/container-update.js';
import type { ContainerUpdate } from './update/update-body.js';

/** dockerd's default for `docker stop` when neither `t` nor StopTimeout say. */
const DEFAULT_STOP_TIMEOUT_S = 10;
/** How long a kill with SIGKILL waits for the run to end before it says the process did not go (dockerd's). */
const KILL_WAIT_MS = 10_000;
const SIGKILL = 9;

export type WaitCondition = 'not-running' | 'next-exit' | 'removed';

export interface WaitResult {
  statusCode: number;
  error?: string;
}

/**
 * A new container, as the API's create, the builder's steps and swarm's tasks all make one: its
 * configuration normalized (normalize-create.ts), and the image it is made from.
 */
export interface ContainerCreateSpec {
  /** with its leading slash (validateContainerName); a generated one when absent */
  name?: string;
  image: { id: Digest; topLayer: Digest | null; layerDirs: readonly string[] };
  config: ContainerConfig;
  bareEnv: BareEnv;
  hostConfig: HostConfig;
  networkingConfig: NetworkingConfig;
  /** Binds then Mounts, parsed and checked against each other (collectMounts) */
  mounts: readonly ParsedMount[];
  /** a swarm task's secrets and configs; their files are the task's to write (task-files.ts) */
  taskFiles?: readonly TaskFileMount[];
}

/** Where health checks run: a probe per container (the exec service's). */
export interface HealthProbes {
  healthProbe(containerId: string): HealthProbe;
}

/**
 * What writes a run's output to its log (logs/log-drain.ts): finish() once the run has ended, stop()
 * when berthd stops (resolving once what it read is written). Undefined when the run has no log
 * pipe left (the exec root was lost).
 */
export type LogDrains = (record: ContainerRecord, forwarder?: LogForwarder) => { stop(): Promise<void>; finish(): Promise<void> } | undefined;

export interface ContainerServiceOptions {
  store: ContainerStore;
  drainLogs: LogDrains;
  runner: ContainerRunner;
  rootfs: RootfsStore;
  volumes: ContainerVolumes;
  events: ContainerEvents;
  runs: RunSignals;
  health: HealthProbes;
  log: Logger;
}

/** One run of a container, while it lasts. */
interface Run {
  conmonPid: number;
  startedAtMs: number;
  /** resolves once the run's end is recorded and cleared */
  finished: Promise<void>;
  stopWatching: AbortController;
  health?: HealthWatch;
  /** what writes its output to the log */
  logs?: { stop(): Promise<void>; finish(): Promise<void> };
}

interface Waiter {
  condition: WaitCondition;
  resolve: (r: WaitResult) => void;
}

export class ContainerService {
  private readonly opts: ContainerServiceOptions;
  private readonly store: ContainerStore;
  private readonly runs = new Map<string, Run>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly restartTimers = new Map<string, { timer: NodeJS.Timeout; delayMs: number }>();
  private readonly lastRestartDelayMs = new Map<string, number>();
  /** the signals being delivered, by container: a kill's event goes out before the die it causes */
  private readonly signalling = new Map<string, Promise<unknown>>();
  private shuttingDown = false;

  constructor(opts: ContainerServiceOptions) {
    this.opts = opts;
    this.store = opts.store;
  }

  // ---- records ----

  get(ref: string): ContainerRecord {
    return this.store.resolve(ref);
  }

  list(): ContainerRecord[] {
    return this.store.all();
  }

  /** The end of the current run, or of the next one when none runs (attach before start). */
  currentOrNextRunEnded(id: string): Promise<void> {
    return this.runs.get(id)?.finished ?? this.opts.runs.nextEnd(id);
  }

  /** Settles once the container runs (at once when it does); also when its start fails, or it goes. */
  runStarted(id: string): Promise<void> {
    return this.runs.has(id) ? Promise.resolve() : this.opts.runs.nextStart(id);
  }

  /**
   * Makes the container: its record, its root filesystem over the image's layers, its volumes, and
   * what dockerd makes in the root filesystem at create; then publishes create. Its ID.
   */
  async create(spec: ContainerCreateSpec): Promise<string> {
    const config = structuredClone(spec.config);
    const id = randomBytes(32).toString('hex');
    const names = this.store.names;
    const name = spec.name !== undefined && spec.name !== '' ? spec.name : names.reserveGenerated(id);
    if (spec.name !== undefined && spec.name !== '') names.reserve(name, id);
    let rootfsMade = false;
    try {
      // with the host's network, the host's name, as dockerd gives it
      if (config.Hostname === undefined || config.Hostname === '') config.Hostname = spec.hostConfig.NetworkMode === 'host' ? hostname() : id.slice(0, 12);
      const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
      if (command.length === 0) throw invalidParameter('No command specified');
      const links = registerLinks((ref) => this.store.find(ref), spec.hostConfig, name);
      await this.opts.rootfs.create(id, spec.image.topLayer, spec.image.layerDirs);
      rootfsMade = true;
      const mountPoints = await resolveMountPoints({
        config,
        hostConfig: spec.hostConfig,
        mounts: spec.mounts,
        volumes: this.opts.volumes,
        containers: (ref) => this.store.find(ref),
      });
      await populateRootfs(this.opts.rootfs, this.opts.volumes, id, { workingDir: config.WorkingDir, mountPoints });
      const record: ContainerRecord = {
        id,
        name,
        created: formatRfc3339Nano(nowNanos()),
        path: command[0],
        args: command.slice(1),
        image: spec.image.id,
        config,
        hostConfig: { ...structuredClone(spec.hostConfig), Links: links },
        networkingConfig: structuredClone(spec.networkingConfig),
        mountPoints,
        bareEnv: spec.bareEnv,
        // the names and targets alone: a secret's content never reaches the record
        ...(spec.taskFiles !== undefined && spec.taskFiles.length > 0 ? { taskFiles: spec.taskFiles.map(({ name, target }) => ({ name, target })) } : {}),
        restartCount: 0,
        state: initialState(),
      };
      await this.store.add(record);
      this.publish(record, 'create');
      return id;
    } catch (err) {
      names.release(name);
      if (rootfsMade) await this.opts.rootfs.remove(id).catch((e: unknown) => this.opts.log.debug({ err: e, id }, 'removing the root filesystem of a failed create'));
      throw err;
    }
  }

  // ---- lifecycle ----

  async start(ref: string): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      const s = record.state.status;
      if (s === 'paused') throw conflict('cannot start a paused container, try unpause instead');
      if (s === 'running' || s === 'restarting') throw notModified();
      if (s === 'removing' || s === 'dead') throw conflict(`container ${record.id} is marked for removal and cannot be started`);
      this.resetRestartPolicy(record);
      try {
        await this.launch(record);
      } catch (err) {
        // dockerd removes an AutoRemove container whose start failed (`docker run --rm` waits for it)
        if (record.hostConfig.AutoRemove === true) {
          await this.removeNow(record, { force: true, removeVolumes: true }).catch((e: unknown) => this.opts.log.debug({ err: e, id: record.id }, 'AutoRemove after a failed start'));
        }
        throw err;
      }
    });
  }

  async stop(ref: string, timeoutS?: number): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      if (!(await this.cancelRestart(record)) && !hasProcess(record.state.status)) throw notModified();
      await this.stopRun(record, timeoutS);
      this.publish(record, 'stop');
    });
  }

  async restart(ref: string, timeoutS?: number): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      await this.cancelRestart(record);
      if (hasProcess(record.state.status)) {
        await this.stopRun(record, timeoutS);
        this.publish(record, 'stop');
      }
      this.resetRestartPolicy(record);
      await this.launch(record);
      this.publish(record, 'restart');
    });
  }

  /**
   * Sends the signal. SIGKILL (the default) answers only once the run has ended, as dockerd's Kill
   * waits for it: a client that removes the container next finds it stopped. Other signals return at once.
   */
  async kill(ref: string, signal: string | undefined): Promise<void> {
    const record = this.get(ref);
    const number = signal === undefined || signal === '' ? SIGKILL : signalNumber(signal);
    await this.serial(record.id, async () => {
      if (await this.cancelRestart(record)) return;
      if (!hasProcess(record.state.status)) throw notRunningError(record.id);
      // any kill through the API counts as a user's stop for the restart policy, as in dockerd
      record.state.stoppedByUser = true;
      await this.store.save(record);
      const run = this.runs.get(record.id);
      await this.signal(record, number);
      if (number !== SIGKILL || run === undefined) return;
      const ended = await Promise.race([run.finished.then(() => true), delay(KILL_WAIT_MS).then(() => false)]);
      if (!ended) throw new EngineError('system', `tried to kill container ${record.id}, but did not receive an exit event`);
    });
  }

  /** Pauses a running container; `forCommit`: for a commit's reading of its layer (recovery resumes it). */
  async pause(ref: string, opts: { forCommit?: boolean } = {}): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      if (record.state.status === 'paused') throw conflict(`Container ${record.id} is already paused`);
      if (record.state.status !== 'running') throw notRunningError(record.id);
      await this.opts.runner.pause(record.id);
      await this.setStatus(record, 'paused', () => {
        if (opts.forCommit === true) record.state.pausedForCommit = true;
      });
      this.publish(record, 'pause');
    });
  }

  async unpause(ref: string): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      // dockerd 20.10 answered 500 the second time; newer engines answer 409 every time, as clients expect
      if (record.state.status !== 'paused') throw conflict(`Container ${record.id} is not paused`);
      await this.opts.runner.resume(record.id);
      await this.setStatus(record, 'running');
      this.publish(record, 'unpause');
    });
  }

  async resize(ref: string, height: number, width: number): Promise<void> {
    const record = this.get(ref);
    if (!hasProcess(record.state.status)) throw notRunningError(record.id);
    if (record.config.Tty !== true) return;
    await this.opts.runner.resize(record.id, height, width);
  }

  /**
   * Registers a wait and returns its outcome; `registered` runs once the wait is in place (the
   * route sends its head then, so a client may start the container knowing no exit is missed).
   */
  wait(ref: string, condition: WaitCondition): Promise<WaitResult> {
    const record = this.get(ref);
    const s = record.state;
    if (condition === 'not-running' && !isActive(s.status)) {
      return Promise.resolve(this.waitResult(record));
    }
    return new Promise((resolve) => {
      const list = this.waiters.get(record.id) ?? [];
      list.push({ condition, resolve });
      this.waiters.set(record.id, list);
    });
  }

  async rename(ref: string, newName: string): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      const oldName = record.name;
      if (newName === oldName) throw invalidParameter('Renaming a container with the same name as its current name');
      this.store.names.reserve(newName, record.id);
      record.name = newName;
      try {
        await this.store.save(record);
      } catch (err) {
        record.name = oldName;
        this.store.names.release(newName);
        throw err;
      }
      this.store.names.release(oldName);
      this.publish(record, 'rename', { oldName });
    });
  }

  async remove(ref: string, opts: { force: boolean; removeVolumes: boolean }): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, () => this.removeNow(record, opts));
  }

  /** Removes every container that is not active and that the filter accepts; what it removed and the space freed. */
  async prune(accept: (r: ContainerRecord) => boolean, sizeOf: (r: ContainerRecord) => number): Promise<{ ids: string[]; reclaimedBytes: number }> {
    const ids: string[] = [];
    let reclaimedBytes = 0;
    for (const record of this.store.all()) {
      if (isActive(record.state.status) || !accept(record)) continue;
      const size = sizeOf(record);
      try {
        await this.serial(record.id, () => this.removeNow(record, { force: false, removeVolumes: false }));
        ids.push(record.id);
        reclaimedBytes += size;
      } catch (err) {
        this.opts.log.warn({ err, id: record.id }, 'prune could not remove a container');
      }
    }
    this.opts.events.pruned(reclaimedBytes);
    return { ids, reclaimedBytes };
  }

  /**
   * Changes the container's networks in its queue: `change` is told whether the container runs
   * (its networking is then changed live) and edits the record, which is saved after.
   */
  async changeNetworks(ref: string, change: (record: ContainerRecord, running: boolean) => Promise<void>): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      await change(record, hasProcess(record.state.status));
      await this.store.save(record);
    });
  }

  /** Replaces the container's legacy links (`docker rm --link` takes one out). */
  async setLinks(ref: string, links: string[]): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, async () => {
      const removed = (record.hostConfig.Links ?? []).filter((l) => !links.includes(l));
      record.hostConfig.Links = links.length > 0 ? links : null;
      await this.store.save(record);
      // dockerd refreshes a running container's sandbox: the links' lines leave its /etc/hosts
      if (hasProcess(record.state.status)) this.opts.runner.dropLinkHosts(record.id, removed.map((l) => l.slice(l.lastIndexOf('/') + 1)));
    });
  }

  /** Changes resources and restart policy (a checked request: container-update.ts), then publishes 'update'. */
  async update(ref: string, change: ContainerUpdate): Promise<void> {
    const record = this.get(ref);
    await this.serial(record.id, () => applyUpdate(record, change, { save: (r) => this.store.save(r), updateRuntime: (id, res) => this.opts.runner.update(id, res) }));
    this.publish(record, 'update');
  }

  // ---- daemon start and stop ----

  /**
   * Brings the records back after a start of the daemon: runs whose conmon still lives are
   * adopted, runs that ended meanwhile get their real exit code and time (and their restart
   * policy), and containers the daemon starts by policy are started.
   */
  async recover(incomplete: readonly string[]): Promise<void> {
    const loaded = this.store.all();
    const log = this.opts.log;
    for (const id of incomplete) {
      log.info({ id }, 'removing a container whose create was interrupted');
      await this.opts.runner.clear(id, { killFirst: true }).catch((err: unknown) => log.debug({ err, id }, 'clearing an interrupted create'));
      await this.opts.rootfs.remove(id).catch((err: unknown) => log.debug({ err, id }, 'removing the root filesystem of an interrupted create'));
      await this.store.delete({ id, name: '' } as ContainerRecord);
    }
    const known = new Set(loaded.map((r) => r.id));
    for (const rootfs of this.opts.rootfs.list()) {
      if (!known.has(rootfs.id)) await this.opts.rootfs.remove(rootfs.id).catch((err: unknown) => log.debug({ err, id: rootfs.id }, 'removing a root filesystem no container owns'));
    }
    this.opts.runner.sweepConmonLeftovers(known);
    await this.opts.runner.sweepTaskFiles(known).catch((err: unknown) => log.warn({ err }, 'removing the secrets of tasks no container owns'));
    await Promise.all(loaded.map((record) => this.recoverOne(record)));
    await this.opts.runner.sweepLogKeepers(new Set(this.runs.keys()));
  }

  private async recoverOne(record: ContainerRecord): Promise<void> {
    const s = record.state;
    if (s.status === 'removing' || s.status === 'dead') {
      // a removal the daemon did not finish: what a run may have left goes first
      await this.opts.runner.clear(record.id, { killFirst: true });
      await this.removeNow(record, { force: true, removeVolumes: false });
      return;
    }
    if (s.status === 'running' || s.status === 'paused' || s.status === 'restarting') {
      const exit = await this.opts.runner.readExit(record.id);
      if (exit === undefined && s.status !== 'restarting' && (await this.opts.runner.conmonAlive(record.id, s.conmonPid))) {
        this.opts.log.info({ id: record.id }, 'adopting a running container');
        this.watch(record, s.conmonPid, Date.parse(s.startedAt));
        await this.settlePause(record).catch((err: unknown) => this.opts.log.warn({ err, id: record.id }, 'settling the pause of an adopted container'));
        return;
      }
      // what the run wrote while berthd was away is still in its pipe
      await this.opts.drainLogs(record)?.finish();
      if (s.status === 'restarting') {
        await this.setStatus(record, 'exited');
      } else {
        await this.recordExit(record, exit ?? { lost: true, finishedAtNs: nowNanos() }, Date.parse(s.startedAt));
        return;
      }
    }
    // no run, but what one makes: a start or a mount the daemon's end cut short (moby's restore deletes such a task too)
    if (await this.opts.runner.hasRunLeftovers(record.id)) {
      this.opts.log.info({ id: record.id }, 'clearing what an interrupted start left');
      await this.opts.runner.clear(record.id, { killFirst: true }).catch((err: unknown) => this.opts.log.warn({ err, id: record.id }, 'clearing what an interrupted start left'));
    }
    if (s.hasBeenStarted && startsWithDaemon(record.hostConfig.RestartPolicy, s.stoppedByUser)) {
      await this.serial(record.id, () => this.launch(record)).catch((err: unknown) => this.opts.log.warn({ err, id: record.id }, 'restart at daemon start failed'));
    }
  }

  /**
   * An adopted run's pause, settled against its cgroup's freezer. A commit's pause the daemon's end
   * came before the commit's unpause is undone; so is a pause or unpause a kill cut between runc and
   * the record (the record is the truth until the change is saved: a pause not saved is undone, an
   * unpause runc made is kept). A user's pause stays.
   */
  private async settlePause(record: ContainerRecord): Promise<void> {
    const s = record.state;
    const frozen = this.opts.runner.frozen(record.id);
    if (frozen === undefined || (s.status === 'running' && !frozen) || (s.status === 'paused' && frozen && s.pausedForCommit !== true)) return;
    this.opts.log.info({ id: record.id, status: s.status, frozen, forCommit: s.pausedForCommit === true }, 'resuming a container an interrupted pause, unpause or commit left frozen or paused');
    if (frozen) await this.opts.runner.resume(record.id);
    if (s.status === 'paused') {
      await this.setStatus(record, 'running');
      this.publish(record, 'unpause');
    }
  }

  /** Stops watching runs (the containers keep running under conmon) and cancels pending restarts. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const { timer } of this.restartTimers.values()) clearTimeout(timer);
    const drains: Array<Promise<void> | undefined> = [];
    for (const run of this.runs.values()) {
      run.health?.stop();
      drains.push(run.logs?.stop());
      run.stopWatching.abort();
    }
    // what the drains had read is written before the daemon goes (the rest waits in the pipes)
    await Promise.all(drains);
  }

  // ---- internals ----

  private async launch(record: ContainerRecord): Promise<void> {
    let handle;
    try {
      handle = await this.opts.runner.launch(record);
    } catch (err) {
      // dockerd keeps the failure on the record, with the exit code the command error implies
      record.state.error = (err as Error).message;
      record.state.exitCode = err instanceof ContainerCommandError ? err.exitCode : 128;
      if (record.state.status === 'restarting') record.state.status = 'exited';
      await this.store.save(record);
      this.publish(record, 'die', { exitCode: String(record.state.exitCode) });
      this.notify(record, ['next-exit']);
      this.opts.runs.ended(record.id);
      throw err;
    }
    const s = record.state;
    await this.setStatus(record, 'running', () => {
      s.pid = handle.pid;
      s.conmonPid = handle.conmonPid;
      s.exitCode = 0;
      s.error = '';
      s.oomKilled = false;
      s.startedAt = formatRfc3339Nano(nowNanos());
      s.finishedAt = ZERO_TIME;
      s.hasBeenStarted = true;
      if (record.config.Healthcheck?.Test && record.config.Healthcheck.Test[0] !== 'NONE' && record.config.Healthcheck.Test.length > 0) {
        s.health = { Status: 'starting', FailingStreak: 0, Log: s.health?.Log ?? [] };
      }
    });
    this.publish(record, 'start');
    this.watch(record, handle.conmonPid, Date.now(), handle.logForwarder);
    this.opts.runs.started(record.id);
  }

  private watch(record: ContainerRecord, conmonPid: number, startedAtMs: number, logForwarder?: LogForwarder): void {
    const stopWatching = new AbortController();
    let finish!: () => void;
    const run: Run = { conmonPid, startedAtMs, finished: new Promise((r) => (finish = r)), stopWatching };
    this.runs.set(record.id, run);
    run.logs = this.opts.drainLogs(record, logForwarder);
    run.health = watchHealth({
      record,
      probe: this.opts.health.healthProbe(record.id),
      onChange: (health, statusChanged) => {
        if (this.runs.get(record.id) !== run) return;
        record.state.health = health;
        this.saveLater(record);
        if (statusChanged) this.publish(record, `health_status: ${health.Status}`);
      },
    });
    this.opts.runner.watchExit(record.id, conmonPid, stopWatching.signal).then(
      async (exit) => {
        run.health?.stop();
        // the output is all in the log before the exit is told, so a `docker logs` after `docker wait` reads it whole
        await run.logs?.finish();
        await this.recordExit(record, exit, startedAtMs, finish);
      },
      (err: unknown) => {
        run.health?.stop();
        void run.logs?.stop();
        if (!stopWatching.signal.aborted) this.opts.log.error({ err, id: record.id }, 'watching a container failed');
        finish();
      },
    );
  }

  /** Records the end of a run: publishes die, clears the run, saves the exit, tells the waiters, and applies the restart policy or AutoRemove. */
  private async recordExit(record: ContainerRecord, exit: ExitRecord | LostRun, startedAtMs: number, finish: () => void = () => {}): Promise<void> {
    const lost = 'lost' in exit;
    const exitCode = lost ? 255 : exit.exitCode;
    // die comes before what clearing the run tells (volume unmounts, network disconnects), as dockerd's
    await this.signalling.get(record.id);
    if (!lost && exit.oomKilled) this.publish(record, 'oom');
    this.publish(record, 'die', { exitCode: String(exitCode) });
    await this.opts.runner.clear(record.id, { killFirst: true }).catch((err: unknown) => this.opts.log.warn({ err, id: record.id }, 'clearing an ended run'));
    const finishedAtNs = exit.finishedAtNs;
    const ranForMs = Number(finishedAtNs / 1_000_000n) - startedAtMs;
    const delayMs = this.shuttingDown
      ? undefined
      : restartDelayMs({
          policy: record.hostConfig.RestartPolicy,
          exitCode,
          stoppedByUser: record.state.stoppedByUser,
          restartCount: record.restartCount,
          ranForMs,
          previousDelayMs: this.lastRestartDelayMs.get(record.id) ?? 0,
        });
    // the record changes at once and is durable by the end: what follows must see the run ended in the same tick
    const saved = this.setStatus(record, delayMs !== undefined ? 'restarting' : 'exited', () => {
      const s = record.state;
      s.pid = 0;
      s.conmonPid = 0;
      s.exitCode = exitCode;
      s.error = lost ? 'the container monitor (conmon) ended without recording an exit code' : '';
      s.oomKilled = !lost && exit.oomKilled;
      s.finishedAt = formatRfc3339Nano(finishedAtNs);
      if (s.health) s.health = { ...s.health, Status: 'unhealthy' };
      if (s.health && s.health.Log.length === 0) delete s.health;
    });
    this.runs.delete(record.id);
    finish();
    this.opts.runs.ended(record.id);
    this.notify(record, ['not-running', 'next-exit']);
    if (delayMs !== undefined) {
      this.scheduleRestart(record, delayMs);
    } else if (record.hostConfig.AutoRemove === true && !this.shuttingDown) {
      void this.serial(record.id, () => this.removeNow(record, { force: true, removeVolumes: true })).catch((err: unknown) =>
        this.opts.log.warn({ err, id: record.id }, 'AutoRemove failed'),
      );
    }
    await saved;
  }

  private scheduleRestart(record: ContainerRecord, delayMs: number): void {
    this.lastRestartDelayMs.set(record.id, delayMs);
    const timer = setTimeout(() => {
      this.restartTimers.delete(record.id);
      void this.serial(record.id, async () => {
        if (record.state.status !== 'restarting') return;
        record.restartCount++;
        await this.launch(record);
      }).catch((err: unknown) => this.opts.log.warn({ err, id: record.id }, 'restart by policy failed'));
    }, delayMs);
    this.restartTimers.set(record.id, { timer, delayMs });
  }

  /** A user's start: the restart policy begins afresh (dockerd's ResetRestartManager: count and delay). */
  private resetRestartPolicy(record: ContainerRecord): void {
    record.state.stoppedByUser = false;
    record.restartCount = 0;
    this.lastRestartDelayMs.delete(record.id);
  }

  /** Cancels a pending restart; true when there was one (the container is then exited). */
  private async cancelRestart(record: ContainerRecord): Promise<boolean> {
    const pending = this.restartTimers.get(record.id);
    if (pending === undefined) return false;
    clearTimeout(pending.timer);
    this.restartTimers.delete(record.id);
    record.state.stoppedByUser = true;
    await this.setStatus(record, 'exited');
    return true;
  }

  /** Signals StopSignal, waits up to the timeout, then kills; returns once the end is recorded. */
  private async stopRun(record: ContainerRecord, timeoutS: number | undefined): Promise<void> {
    const run = this.runs.get(record.id);
    record.state.stoppedByUser = true;
    await this.store.save(record);
    if (run === undefined) return;
    const wait = timeoutS ?? record.config.StopTimeout ?? DEFAULT_STOP_TIMEOUT_S;
    const stopSignal = signalNumber(record.config.StopSignal || 'SIGTERM');
    await this.signal(record, stopSignal).catch((err: unknown) => this.opts.log.debug({ err, id: record.id }, 'stop signal'));
    if (wait >= 0) {
      const ended = await Promise.race([run.finished.then(() => true), delay(wait * 1000).then(() => false)]);
      if (ended) return;
      await this.signal(record, SIGKILL).catch((err: unknown) => this.opts.log.debug({ err, id: record.id }, 'stop kill'));
    }
    await run.finished;
  }

  private async signal(record: ContainerRecord, signal: number): Promise<void> {
    const delivered = this.opts.runner.signal(record.id, signal).then(() => this.publish(record, 'kill', { signal: String(signal) }));
    const settled = delivered.catch(() => undefined);
    this.signalling.set(record.id, settled);
    try {
      await delivered;
    } finally {
      if (this.signalling.get(record.id) === settled) this.signalling.delete(record.id);
    }
    // a paused container must run to receive it (dockerd resumes it too)
    if (record.state.status === 'paused' && (signal === SIGKILL || signal === signalNumber(record.config.StopSignal || 'SIGTERM'))) {
      await this.opts.runner.resume(record.id).catch((err: unknown) => this.opts.log.debug({ err, id: record.id }, 'resume to deliver a signal'));
      await this.setStatus(record, 'running');
    }
  }

  private async removeNow(record: ContainerRecord, opts: { force: boolean; removeVolumes: boolean }): Promise<void> {
    if (this.store.byId(record.id) === undefined) return;
    const s = record.state.status;
    if (!opts.force && s === 'paused') {
      throw conflict(`You cannot remove a paused container ${record.id}. Unpause and then stop the container before attempting removal or force remove`);
    }
    if (!opts.force && (s === 'running' || s === 'restarting')) {
      throw conflict(`You cannot remove a running container ${record.id}. Stop the container before attempting removal or force remove`);
    }
    await this.cancelRestart(record);
    const run = this.runs.get(record.id);
    if (run) {
      record.state.stoppedByUser = true;
      // a run that ended as it was killed makes runc fail: the wait below is what counts
      await this.signal(record, SIGKILL).catch((err: unknown) => this.opts.log.debug({ err, id: record.id }, 'kill before removal'));
      await run.finished;
    }
    if (record.state.status !== 'removing') await this.setStatus(record, 'removing');
    // the end of the last run cleared its runtime state already; the root filesystem goes now
    // (unless a removal the daemon's end cut short took it: the record goes last)
    if (this.opts.rootfs.get(record.id) !== undefined) await this.opts.rootfs.remove(record.id);
    await this.opts.runner.forget(record.id);
    await this.store.delete(record);
    this.lastRestartDelayMs.delete(record.id);
    if (opts.removeVolumes) await this.removeAnonymousVolumes(record);
    this.publish(record, 'destroy');
    this.opts.runs.ended(record.id);
    this.notify(record, ['not-running', 'next-exit', 'removed']);
  }

  /** The volumes made for the container alone, unless another container mounts them too (VolumesFrom), as dockerd's rm -v. */
  private async removeAnonymousVolumes(record: ContainerRecord): Promise<void> {
    const inUse = new Set(this.store.all().flatMap((r) => r.mountPoints.map((m) => m.Name)));
    for (const m of record.mountPoints) {
      if (m.Type !== 'volume' || m.anonymous !== true || m.Name === undefined || inUse.has(m.Name)) continue;
      // the container is gone by now: as dockerd, a volume that can't go is logged, not the removal's failure
      await this.opts.volumes.remove(m.Name).catch((err: unknown) => this.opts.log.warn({ err, id: record.id, volume: m.Name }, 'removing a volume with its container'));
    }
  }

  /** Moves the container to `status` in memory at once; resolves once the record is durable. */
  private async setStatus(record: ContainerRecord, status: ContainerStatus, change?: () => void): Promise<void> {
    if (!canMove(record.state.status, status)) {
      throw new EngineError('system', `container ${record.id} cannot go from ${record.state.status} to ${status}`);
    }
    const before = structuredClone(record.state);
    record.state.status = status;
    // only a pause says who paused it
    if (status !== 'paused') delete record.state.pausedForCommit;
    change?.();
    try {
      await this.store.save(record);
    } catch (err) {
      // unless it has moved on meanwhile
      if (record.state.status === status) record.state = before;
      throw err;
    }
  }

  /** Saves a change nobody waits on (a health check's); a failure is logged, as dockerd logs a failed checkpoint. */
  private saveLater(record: ContainerRecord): void {
    this.store.save(record).catch((err: unknown) => this.opts.log.error({ err, id: record.id }, 'saving the container\'s record'));
  }

  private waitResult(record: ContainerRecord): WaitResult {
    return record.state.error !== '' ? { statusCode: record.state.exitCode, error: record.state.error } : { statusCode: record.state.exitCode };
  }

  private notify(record: ContainerRecord, conditions: WaitCondition[]): void {
    const list = this.waiters.get(record.id);
    if (!list) return;
    const result = this.waitResult(record);
    const keep = list.filter((w) => {
      if (!conditions.includes(w.condition)) return true;
      // a removal tells the exit code alone, as dockerd's (a failed start's error stays out of docker run --rm)
      w.resolve(w.condition === 'removed' ? { statusCode: result.statusCode } : result);
      return false;
    });
    if (keep.length > 0) this.waiters.set(record.id, keep);
    else this.waiters.delete(record.id);
  }

  private publish(record: ContainerRecord, action: string, extra: Record<string, string> = {}): void {
    this.opts.events.publish(record, action, extra);
  }

  /** Runs `fn` after every earlier operation on the same container, if the container is still there. */
  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    const run = (): Promise<T> => (this.store.byId(id) === undefined ? Promise.reject(new NoSuchContainerError(id)) : fn());
    const next = previous.then(run, run);
    const settled = next.catch(() => undefined);
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return next;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
