// What one service's tasks need now, as swarmkit's orchestrators decide it (replicated, global,
// replicated-job, global-job), with its restart supervisor and its rolling updater folded in: a
// pure function of the service, its tasks and the nodes, so that any leader (a new one after a
// failover too) reaches the same decisions from the store alone. The caller writes the plan in
// one transaction, and runs again at `wakeInMs` for what only time decides (a restart delay, an
// update's delay or monitor).
import { formatRfc3339Nano } from '../../lib/timestamp.js';
import type { Versioned } from '../cluster/cluster-state.js';
import type { LogDriverSpec, NodeRecord } from '../cluster/records.js';
import { hasEnded, isJob, isTaskDirty, type DesiredState, type ServiceRecord, type TaskRecord, type UpdateStatus } from '../services/service-records.js';
import type { UpdateConfig } from '../services/service-types.js';
import type { TaskWrite } from '../services/service-state.js';
import { constraintsOf, nodeMeets } from './constraints.js';
import { newTask } from './task-factory.js';
import { groupBy } from '../../lib/group-by.js';

const NS_PER_MS = 1_000_000;
const DEFAULT_RESTART_DELAY_MS = 5000;
const DEFAULT_MONITOR_MS = 5000;

export interface PlanInput {
  service: Versioned<ServiceRecord>;
  /** the service's tasks */
  tasks: ReadonlyArray<Versioned<TaskRecord>>;
  nodes: ReadonlyMap<string, NodeRecord>;
  nowNs: bigint;
  /** when this leader last started tasks of an update batch for the service (its Delay counts from then) */
  lastBatchMs?: number;
  /** the swarm's TaskDefaults.LogDriver, for new tasks whose spec names none */
  defaultLogDriver?: LogDriverSpec;
}

export interface Plan {
  writes: TaskWrite[];
  /** the service's record, when its update status or spec (a rollback) changes */
  service?: ServiceRecord;
  /** the next pass this service needs, at the latest */
  wakeInMs?: number;
  /** an update batch was started now */
  batchStarted: boolean;
}

/** The tasks of a service that is gone: each to be removed (desired `remove`), as swarmkit's deleted-service handling does. */
export function planRemoval(tasks: ReadonlyArray<Versioned<TaskRecord>>, nowNs: bigint): TaskWrite[] {
  return tasks.filter((t) => t.value.desiredState !== 'remove').map((t) => ({ put: desire(t.value, 'remove', nowNs), version: t.version }));
}

export function planService(input: PlanInput): Plan {
  return new ServicePlanner(input).plan();
}

class ServicePlanner {
  private readonly changed = new Map<string, { record: TaskRecord; version: number }>();
  private readonly created: TaskRecord[] = [];
  private service: ServiceRecord;
  private wakeMs: number | undefined;
  private readonly nowMs: number;
  private batchStarted = false;

  constructor(private readonly input: PlanInput) {
    this.service = input.service.value;
    this.nowMs = Number(input.nowNs / BigInt(NS_PER_MS));
  }

  plan(): Plan {
    const mode = this.service.spec.Mode;
    if (mode.Replicated !== undefined) this.judgeUpdate(mode.Replicated.Replicas);
    else if (mode.Global !== undefined) this.judgeUpdate(this.input.nodes.size);
    if (mode.Global !== undefined) this.global(false);
    else if (mode.GlobalJob !== undefined) this.global(true);
    else if (mode.ReplicatedJob !== undefined) this.replicatedJob(mode.ReplicatedJob);
    else this.replicated(mode.Replicated?.Replicas ?? 1);
    const writes: TaskWrite[] = [...[...this.changed.values()].map((c) => ({ put: c.record, version: c.version })), ...this.created.map((t) => ({ put: t, version: 0 }))];
    return {
      writes,
      ...(this.service !== this.input.service.value ? { service: this.service } : {}),
      ...(this.wakeMs !== undefined ? { wakeInMs: Math.max(0, this.wakeMs - this.nowMs) } : {}),
      batchStarted: this.batchStarted,
    };
  }

  // --- replicated -------------------------------------------------------------------------------

  private replicated(replicas: number): void {
    const slots = this.slotsOf(this.current(), (t) => String(t.slot));
    const numbers = [...slots.keys()].map(Number).sort((a, b) => a - b);
    // scaled down: the highest slots go
    for (const n of numbers.slice(replicas)) for (const t of slots.get(String(n))!) this.setDesired(t, 'remove');
    const kept = numbers.slice(0, replicas);
    const outdated: Array<Versioned<TaskRecord>> = [];
    let inFlight = 0;
    for (const n of kept) {
      const r = this.reconcileSlot(slots.get(String(n))!, () => this.create(n, ''));
      if (r.outdated !== undefined) outdated.push(r.outdated);
      if (r.inFlight) inFlight++;
    }
    // scaled up: the lowest free slot numbers
    const taken = new Set(kept);
    for (let n = 1, added = kept.length; added < replicas; n++) {
      if (taken.has(n)) continue;
      this.create(n, '');
      added++;
    }
    this.rollOut(outdated, inFlight, (t) => this.create(t.value.slot, ''));
  }

  // --- global -----------------------------------------------------------------------------------

  private global(job: boolean): void {
    const constraints = constraintsOf(this.service.spec.TaskTemplate.Placement?.Constraints ?? []);
    const byNode = this.slotsOf(job ? this.ofIteration() : this.current(), (t) => t.nodeId);
    const outdated: Array<Versioned<TaskRecord>> = [];
    let inFlight = 0;
    for (const node of this.input.nodes.values()) {
      const tasks = byNode.get(node.id) ?? [];
      byNode.delete(node.id);
      const fits = node.spec.availability !== 'drain' && nodeMeets(node, constraints);
      if (!fits) {
        for (const t of tasks) if (isLive(t.value)) this.setDesired(t, 'shutdown');
        continue;
      }
      if (tasks.length === 0) {
        // a node down or paused gets no new task; a job's node that completed its task none either
        if (node.status.state !== 'down' && node.spec.availability === 'active') this.create(0, node.id);
        continue;
      }
      if (job) {
        this.reconcileJobTask(tasks, () => this.create(0, node.id));
        continue;
      }
      const r = this.reconcileSlot(tasks, () => this.create(0, node.id), true);
      if (r.outdated !== undefined) outdated.push(r.outdated);
      if (r.inFlight) inFlight++;
    }
    // the tasks of nodes no longer in the swarm
    for (const tasks of byNode.values()) for (const t of tasks) if (isLive(t.value)) this.setDesired(t, 'shutdown');
    if (!job) this.rollOut(outdated, inFlight, (t) => this.create(0, t.value.nodeId));
  }

  // --- replicated jobs --------------------------------------------------------------------------

  private replicatedJob(mode: { MaxConcurrent?: number; TotalCompletions?: number }): void {
    const maxConcurrent = mode.MaxConcurrent ?? 1;
    const total = mode.TotalCompletions ?? maxConcurrent;
    const slots = this.slotsOf(this.ofIteration(), (t) => String(t.slot));
    let completed = 0;
    let running = 0;
    for (const [slot, tasks] of slots) {
      const latest = tasks[tasks.length - 1]!;
      if (latest.value.status.state === 'complete') completed++;
      else if (this.reconcileJobTask(tasks, () => this.create(Number(slot), ''))) running++;
    }
    let next = Math.max(0, ...[...slots.keys()].map(Number)) + 1;
    for (let i = 0; i < Math.min(maxConcurrent - running, total - completed - running); i++) this.create(next++, '');
  }

  /** A job's slot: a failed task restarted as its policy says (on failure by default); whether the slot still runs. */
  private reconcileJobTask(tasks: ReadonlyArray<Versioned<TaskRecord>>, replace: () => void): boolean {
    const latest = tasks[tasks.length - 1]!;
    const t = latest.value;
    if (!hasEnded(t.status.state)) {
      if (!this.nodeUsable(t.nodeId)) {
        this.setDesired(latest, 'shutdown');
        replace();
      }
      return true;
    }
    if (t.status.state === 'complete') return false;
    if (t.desiredState === 'complete' && this.mayRestart(tasks, latest, 'on-failure')) {
      const due = this.restartDue(t);
      if (due > this.nowMs) {
        this.wakeAt(due);
        return true;
      }
      this.setDesired(latest, 'shutdown');
      replace();
      return true;
    }
    if (t.desiredState === 'complete') this.setDesired(latest, 'shutdown');
    return false;
  }

  // --- a slot's task: restarts, moves off unusable nodes ---------------------------------------

  /**
   * One slot of a long-running service: its latest live task stays, runs again as its restart
   * policy says once it ends, or moves when its node is down or drained; older live ones stop. A
   * task whose spec is not the service's is the updater's to replace (`outdated`).
   */
  private reconcileSlot(tasks: ReadonlyArray<Versioned<TaskRecord>>, replace: () => void, global = false): { outdated?: Versioned<TaskRecord>; inFlight: boolean } {
    const live = tasks.filter((t) => isLive(t.value));
    if (live.length === 0) {
      // every task asked to stop: a stop-first update's old one, one moved off its node, or one
      // whose restart its policy refused (which ended by itself, not `shutdown`)
      const last = tasks[tasks.length - 1]!.value;
      const usable = this.nodeUsable(last.nodeId);
      if (!hasEnded(last.status.state) && usable) return { inFlight: true };
      // a global service's node that is down keeps its slot until it is back
      if (global && !usable) return { inFlight: false };
      if (this.isOutdated(last) || !usable || last.status.state === 'shutdown') {
        replace();
        return { inFlight: this.isOutdated(last) };
      }
      return { inFlight: false };
    }
    const latest = live[live.length - 1]!;
    const t = latest.value;
    // an older task runs on only until its start-first successor runs
    for (const older of live.slice(0, -1)) {
      if (t.status.state === 'running' || hasEnded(t.status.state) || older.value.status.state !== 'running') this.setDesired(older, 'shutdown');
    }
    if (!this.nodeUsable(t.nodeId)) {
      this.setDesired(latest, 'shutdown');
      // a global service's task is not replaced on its node's behalf: the node's own comes when it is back
      if (!global) replace();
      return { inFlight: false };
    }
    // an outdated task is the updater's, ended or not: it replaces it in its turn
    if (this.isOutdated(t)) return { outdated: latest, inFlight: false };
    if (hasEnded(t.status.state)) {
      if (!this.mayRestart(tasks, latest, 'any')) {
        this.setDesired(latest, 'shutdown');
        return { inFlight: false };
      }
      const due = this.restartDue(t);
      if (due > this.nowMs) this.wakeAt(due);
      else {
        this.setDesired(latest, 'shutdown');
        replace();
      }
      return { inFlight: this.updating() };
    }
    return { inFlight: t.status.state !== 'running' && this.updating() };
  }

  /** An update or a rollback goes on: a slot whose task does not run yet holds its next batch back. */
  private updating(): boolean {
    const state = this.service.updateStatus?.state;
    return state === 'updating' || state === 'rollback_started';
  }

  /** Whether the slot's ended task may run again: its restart condition, then MaxAttempts within Window. */
  private mayRestart(slot: ReadonlyArray<Versioned<TaskRecord>>, latest: Versioned<TaskRecord>, defaultCondition: 'any' | 'on-failure'): boolean {
    const policy = this.service.spec.TaskTemplate.RestartPolicy;
    const condition = policy?.Condition ?? defaultCondition;
    const failed = latest.value.status.state === 'failed' || latest.value.status.state === 'rejected';
    if (condition === 'none' || (condition === 'on-failure' && !failed)) return false;
    const maxAttempts = policy?.MaxAttempts ?? 0;
    if (maxAttempts === 0) return true;
    const windowMs = (policy?.Window ?? 0) / NS_PER_MS;
    const spec = JSON.stringify(latest.value.spec);
    const restarts = slot.filter((t) => JSON.stringify(t.value.spec) === spec && (windowMs === 0 || this.nowMs - Date.parse(t.value.createdAt) <= windowMs)).length - 1;
    return restarts < maxAttempts;
  }

  private restartDue(t: TaskRecord): number {
    const delayNs = this.service.spec.TaskTemplate.RestartPolicy?.Delay;
    return Date.parse(t.status.timestamp) + (delayNs === undefined ? DEFAULT_RESTART_DELAY_MS : delayNs / NS_PER_MS);
  }

  // --- the rolling update ------------------------------------------------------------------------

  /**
   * swarmkit's updater, its judgement first: new tasks that fail within `Monitor` of running count
   * as failures, and past MaxFailureRatio of the slots the FailureAction pauses the update, rolls
   * it back (the previous spec becomes the service's: restarts in the same pass use it) or lets it
   * go on.
   */
  private judgeUpdate(slotCount: number): void {
    const status = this.service.updateStatus;
    if (status?.state !== 'updating' && status?.state !== 'rollback_started') return;
    const rollingBack = status.state === 'rollback_started';
    const config = this.updateConfig();
    const failed = this.updateFailures(status, config.monitorMs);
    if (failed.length === 0 || failed.length / Math.max(1, slotCount) <= config.maxFailureRatio) return;
    const task = failed[failed.length - 1]!.id;
    if (config.failureAction === 'pause' || (rollingBack && config.failureAction === 'rollback')) {
      this.setStatus({ ...status, state: rollingBack ? 'rollback_paused' : 'paused', message: `${rollingBack ? 'rollback' : 'update'} paused due to failure or early termination of task ${task}` });
    } else if (config.failureAction === 'rollback' && this.service.previousSpec !== undefined) {
      this.service = { ...this.service, spec: this.service.previousSpec, previousSpec: this.service.spec, updateStatus: { state: 'rollback_started', startedAt: formatRfc3339Nano(this.input.nowNs), message: `update rolled back due to failure or early termination of task ${task}` } };
    }
  }

  /**
   * Then its roll-out: outdated slots replaced `Parallelism` at a time (0: all), `Delay` after each
   * batch, stop-first or start-first; done once none is outdated and the last new task has run
   * for `Monitor`. Only outdated tasks start an update: a restart is none.
   */
  private rollOut(outdated: ReadonlyArray<Versioned<TaskRecord>>, inFlight: number, replace: (old: Versioned<TaskRecord>) => void): void {
    let status = this.service.updateStatus;
    const rollingBack = status?.state === 'rollback_started';
    const config = this.updateConfig();
    if (outdated.length === 0) {
      if (inFlight === 0 && (status?.state === 'updating' || status?.state === 'rollback_started')) {
        const settled = this.lastRunningAt() + config.monitorMs;
        if (settled > this.nowMs) return this.wakeAt(settled);
        this.setStatus({ ...status, state: rollingBack ? 'rollback_completed' : 'completed', completedAt: formatRfc3339Nano(this.input.nowNs), message: rollingBack ? 'rollback completed' : 'update completed' });
      }
      return;
    }
    if (status?.state === 'paused' || status?.state === 'rollback_paused') return;
    if (status === undefined || status.state === 'completed' || status.state === 'rollback_completed') {
      status = { state: 'updating', startedAt: formatRfc3339Nano(this.input.nowNs), message: 'update in progress' };
      this.setStatus(status);
    }
    const readyAt = (this.input.lastBatchMs ?? 0) + config.delayMs;
    if (readyAt > this.nowMs) return this.wakeAt(readyAt);
    const room = config.parallelism === 0 ? outdated.length : config.parallelism - inFlight;
    if (room <= 0) return;
    for (const old of outdated.slice(0, room)) {
      if (config.order === 'start-first') replace(old);
      else this.setDesired(old, 'shutdown');
    }
    this.batchStarted = true;
    if (config.delayMs > 0) this.wakeAt(this.nowMs + config.delayMs);
  }

  /** The update's config, or the rollback's while one rolls back. */
  private updateConfig(): EffectiveUpdateConfig {
    const state = this.service.updateStatus?.state;
    return withUpdateDefaults(state === 'rollback_started' || state === 'rollback_paused' ? this.service.spec.RollbackConfig : this.service.spec.UpdateConfig);
  }

  /** The update's new tasks that failed before running, or within Monitor of it. */
  private updateFailures(status: UpdateStatus, monitorMs: number): TaskRecord[] {
    return this.input.tasks
      .map((t) => t.value)
      .filter((t) => !this.isOutdated(t) && t.createdAt >= status.startedAt && (t.status.state === 'failed' || t.status.state === 'rejected'))
      .filter((t) => t.runningAt === undefined || Date.parse(t.status.timestamp) - Date.parse(t.runningAt) <= monitorMs)
      .sort((a, b) => a.status.timestamp.localeCompare(b.status.timestamp));
  }

  private lastRunningAt(): number {
    let last = 0;
    for (const { value: t } of this.input.tasks) if (t.runningAt !== undefined && !this.isOutdated(t)) last = Math.max(last, Date.parse(t.runningAt));
    return last;
  }

  // --- helpers ------------------------------------------------------------------------------------

  /** The tasks not being removed. */
  private current(): Array<Versioned<TaskRecord>> {
    return this.input.tasks.filter((t) => t.value.desiredState !== 'remove');
  }

  /** A job's tasks of its current iteration; those of earlier ones stop. */
  private ofIteration(): Array<Versioned<TaskRecord>> {
    const iteration = this.service.jobStatus?.iteration ?? 0;
    const out: Array<Versioned<TaskRecord>> = [];
    for (const t of this.current()) {
      if ((t.value.jobIteration ?? 0) === iteration) out.push(t);
      else if (isLive(t.value)) this.setDesired(t, 'shutdown');
    }
    return out;
  }

  /** Tasks grouped by slot (or node), oldest first in each. */
  private slotsOf(tasks: ReadonlyArray<Versioned<TaskRecord>>, key: (t: TaskRecord) => string): Map<string, Array<Versioned<TaskRecord>>> {
    const sorted = [...tasks].sort((a, b) => a.value.createdAt.localeCompare(b.value.createdAt) || a.value.id.localeCompare(b.value.id));
    return groupBy(sorted, (t) => key(t.value));
  }

  private isOutdated(t: TaskRecord): boolean {
    return isTaskDirty(t, this.service);
  }

  /** A node that may keep running tasks: in the swarm, not down, not drained. An unassigned task's none yet. */
  private nodeUsable(nodeId: string): boolean {
    if (nodeId === '') return true;
    const node = this.input.nodes.get(nodeId);
    return node !== undefined && node.status.state !== 'down' && node.spec.availability !== 'drain';
  }

  private create(slot: number, nodeId: string): void {
    this.created.push(newTask(this.service, slot, nodeId, this.input.nowNs + BigInt(this.created.length), isJob(this.service.spec.Mode) ? 'complete' : 'running', this.input.defaultLogDriver));
  }

  private setDesired(t: Versioned<TaskRecord>, desired: DesiredState): void {
    const known = this.changed.get(t.value.id)?.record ?? t.value;
    if (known.desiredState === desired || (known.desiredState === 'remove' && desired === 'shutdown')) return;
    this.changed.set(t.value.id, { record: desire(known, desired, this.input.nowNs), version: t.version });
  }

  private setStatus(status: UpdateStatus): void {
    this.service = { ...this.service, updateStatus: status };
  }

  private wakeAt(ms: number): void {
    this.wakeMs = this.wakeMs === undefined ? ms : Math.min(this.wakeMs, ms);
  }
}

function isLive(t: TaskRecord): boolean {
  return t.desiredState === 'running' || t.desiredState === 'ready' || t.desiredState === 'complete';
}

function desire(t: TaskRecord, desiredState: DesiredState, nowNs: bigint): TaskRecord {
  return { ...t, desiredState, updatedAt: formatRfc3339Nano(nowNs) };
}

interface EffectiveUpdateConfig {
  parallelism: number;
  delayMs: number;
  failureAction: 'pause' | 'continue' | 'rollback';
  monitorMs: number;
  maxFailureRatio: number;
  order: 'stop-first' | 'start-first';
}

/** swarmkit's defaults (api/defaults): one at a time, no delay, pause on failure, 5 s monitor, stop-first. */
function withUpdateDefaults(c: UpdateConfig | undefined): EffectiveUpdateConfig {
  return {
    parallelism: c?.Parallelism ?? 1,
    delayMs: (c?.Delay ?? 0) / NS_PER_MS,
    failureAction: c?.FailureAction ?? 'pause',
    monitorMs: c?.Monitor === undefined || c.Monitor === 0 ? DEFAULT_MONITOR_MS : c.Monitor / NS_PER_MS,
    maxFailureRatio: c?.MaxFailureRatio ?? 0,
    order: c?.Order ?? 'stop-first',
  };
}
