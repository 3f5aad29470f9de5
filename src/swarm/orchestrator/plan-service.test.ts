// The orchestrators' decisions from the store alone (plan-service.ts): slots filled and emptied,
// restarts by policy and delay, tasks moved off nodes down or drained, global services following
// nodes, jobs to their completions, and the rolling update's batches, monitor, pause and rollback.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Versioned } from '../cluster/cluster-state.js';
import type { Availability, NodeRecord, NodeState } from '../cluster/records.js';
import type { DesiredState, ServiceRecord, TaskRecord, TaskState } from '../services/service-records.js';
import type { ServiceSpec, TaskSpec } from '../services/service-types.js';
import { planService, type Plan } from './plan-service.js';

const MS = 1_000_000n;
const T0 = BigInt(Date.parse('2026-11-26T10:00:00Z')) * MS;
const at = (ms: number) => new Date(Date.parse('2026-11-26T10:00:00Z') + ms).toISOString();

function node(id: string, state: NodeState = 'ready', availability: Availability = 'active', labels: Record<string, string> = {}): NodeRecord {
  return {
    id,
    createdAt: at(0),
    updatedAt: at(0),
    spec: { name: '', labels, role: 'worker', availability },
    role: 'worker',
    description: { hostname: id, platform: { architecture: 'x86_64', os: 'linux' }, resources: { nanoCpus: 2e9, memoryBytes: 2 ** 30 }, engine: { engineVersion: '1', labels: {}, plugins: [] } },
    status: { state, message: '', addr: '10.0.0.1' },
  };
}

function template(image = 'busybox', extra: Partial<TaskSpec> = {}): TaskSpec {
  return { ContainerSpec: { Image: image, Isolation: 'default' }, ForceUpdate: 0, ...extra };
}

function service(spec: Partial<ServiceSpec> = {}, extra: Partial<ServiceRecord> = {}): Versioned<ServiceRecord> {
  return {
    version: 10,
    value: { id: 'svc', createdAt: at(0), updatedAt: at(0), spec: { Name: 'web', Labels: {}, TaskTemplate: template(), Mode: { Replicated: { Replicas: 2 } }, ...spec }, endpoint: { ports: [], virtualIps: [] }, ...extra },
  };
}

let counter = 0;
function task(svc: Versioned<ServiceRecord>, slot: number, state: TaskState, opts: { desired?: DesiredState; nodeId?: string; spec?: TaskSpec; createdMs?: number; statusMs?: number; runningMs?: number } = {}): Versioned<TaskRecord> {
  counter++;
  return {
    version: 100 + counter,
    value: {
      id: `task${String(counter).padStart(3, '0')}`,
      createdAt: at(opts.createdMs ?? counter),
      updatedAt: at(0),
      serviceId: svc.value.id,
      serviceAnnotations: { name: svc.value.spec.Name, labels: {} },
      slot,
      nodeId: opts.nodeId ?? 'n1',
      spec: opts.spec ?? svc.value.spec.TaskTemplate,
      endpoint: svc.value.endpoint,
      status: { timestamp: at(opts.statusMs ?? 0), state, message: '' },
      desiredState: opts.desired ?? 'running',
      ...(opts.runningMs !== undefined ? { runningAt: at(opts.runningMs) } : {}),
    },
  };
}

const nodes = (...list: NodeRecord[]) => new Map(list.map((n) => [n.id, n]));

function created(plan: Plan): TaskRecord[] {
  return plan.writes.filter((w) => 'put' in w && w.version === 0).map((w) => (w as { put: TaskRecord }).put);
}

function desired(plan: Plan): Record<string, DesiredState> {
  return Object.fromEntries(plan.writes.filter((w) => 'put' in w && w.version !== 0).map((w) => [(w as { put: TaskRecord }).put.id, (w as { put: TaskRecord }).put.desiredState]));
}

describe('planService: replicated', () => {
  it('fills each slot once, in order, with new tasks', () => {
    const svc = service();
    const plan = planService({ service: svc, tasks: [], nodes: nodes(node('n1')), nowNs: T0 });
    assert.deepEqual(
      created(plan).map((t) => [t.slot, t.status.state, t.status.message, t.desiredState, t.nodeId]),
      [
        [1, 'new', 'created', 'running', ''],
        [2, 'new', 'created', 'running', ''],
      ],
    );
  });

  it('gives new tasks the swarm’s default log driver when their spec names none', () => {
    const driver = { name: 'json-file', options: { 'max-size': '1m' } };
    const plain = planService({ service: service(), tasks: [], nodes: nodes(node('n1')), nowNs: T0, defaultLogDriver: driver });
    assert.deepEqual(created(plain).map((t) => t.logDriver), [driver, driver]);
    const own = service({ TaskTemplate: template('busybox', { LogDriver: { Name: 'none' } }) });
    assert.deepEqual(created(planService({ service: own, tasks: [], nodes: nodes(node('n1')), nowNs: T0, defaultLogDriver: driver })).map((t) => t.logDriver), [undefined, undefined]);
  });

  it('scales down from the highest slot, asking its tasks to be removed', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 1 } } });
    const t1 = task(svc, 1, 'running');
    const t2 = task(svc, 2, 'running');
    const plan = planService({ service: svc, tasks: [t1, t2], nodes: nodes(node('n1')), nowNs: T0 });
    assert.deepEqual(desired(plan), { [t2.value.id]: 'remove' });
    assert.equal(created(plan).length, 0);
  });

  it('restarts a failed task after its delay (5 s by default), and not before', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 1 } } });
    const failed = task(svc, 1, 'failed', { statusMs: 0 });
    const early = planService({ service: svc, tasks: [failed], nodes: nodes(node('n1')), nowNs: T0 + 1000n * MS });
    assert.equal(early.writes.length, 0);
    assert.equal(early.wakeInMs, 4000);
    const due = planService({ service: svc, tasks: [failed], nodes: nodes(node('n1')), nowNs: T0 + 5000n * MS });
    assert.deepEqual(desired(due), { [failed.value.id]: 'shutdown' });
    assert.deepEqual(created(due).map((t) => t.slot), [1]);
  });

  it('does not restart under condition none, nor on-failure after exit 0, nor past MaxAttempts', () => {
    const none = service({ Mode: { Replicated: { Replicas: 1 } }, TaskTemplate: template('busybox', { RestartPolicy: { Condition: 'none', MaxAttempts: 0 } }) });
    const p1 = planService({ service: none, tasks: [task(none, 1, 'failed')], nodes: nodes(node('n1')), nowNs: T0 + 60_000n * MS });
    assert.equal(created(p1).length, 0);
    const onFailure = service({ Mode: { Replicated: { Replicas: 1 } }, TaskTemplate: template('busybox', { RestartPolicy: { Condition: 'on-failure', Delay: 0, MaxAttempts: 0 } }) });
    assert.equal(created(planService({ service: onFailure, tasks: [task(onFailure, 1, 'complete')], nodes: nodes(node('n1')), nowNs: T0 + 60_000n * MS })).length, 0);
    assert.equal(created(planService({ service: onFailure, tasks: [task(onFailure, 1, 'failed')], nodes: nodes(node('n1')), nowNs: T0 + 60_000n * MS })).length, 1);
    const limited = service({ Mode: { Replicated: { Replicas: 1 } }, TaskTemplate: template('busybox', { RestartPolicy: { Condition: 'any', Delay: 0, MaxAttempts: 1 } }) });
    const history = [task(limited, 1, 'failed', { desired: 'shutdown' }), task(limited, 1, 'failed')];
    assert.equal(created(planService({ service: limited, tasks: history, nodes: nodes(node('n1')), nowNs: T0 + 60_000n * MS })).length, 0);
  });

  it('moves a task off a node that is down or drained at once, and never restarts a task asked to stop', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 2 } } });
    const onDown = task(svc, 1, 'running', { nodeId: 'n2' });
    const onDrained = task(svc, 2, 'running', { nodeId: 'n3' });
    const plan = planService({ service: svc, tasks: [onDown, onDrained], nodes: nodes(node('n1'), node('n2', 'down'), node('n3', 'ready', 'drain')), nowNs: T0 });
    assert.deepEqual(desired(plan), { [onDown.value.id]: 'shutdown', [onDrained.value.id]: 'shutdown' });
    assert.deepEqual(created(plan).map((t) => t.slot).sort(), [1, 2]);
  });
});

describe('planService: global', () => {
  it('runs one task on each active node that meets the constraints, none on a drained or paused one', () => {
    const svc = service({ Mode: { Global: {} }, TaskTemplate: template('busybox', { Placement: { Constraints: ['node.labels.zone!=b'] } }) });
    const plan = planService({ service: svc, tasks: [], nodes: nodes(node('n1'), node('n2', 'ready', 'drain'), node('n3', 'ready', 'pause'), node('n4', 'ready', 'active', { zone: 'b' }), node('n5', 'down')), nowNs: T0 });
    assert.deepEqual(
      created(plan).map((t) => [t.slot, t.nodeId]),
      [[0, 'n1']],
    );
  });

  it('stops the task of a node drained, and brings one back once the node is active again', () => {
    const svc = service({ Mode: { Global: {} } });
    const t = task(svc, 0, 'running', { nodeId: 'n1' });
    assert.deepEqual(desired(planService({ service: svc, tasks: [t], nodes: nodes(node('n1', 'ready', 'drain')), nowNs: T0 })), { [t.value.id]: 'shutdown' });
    const stopped = task(svc, 0, 'shutdown', { nodeId: 'n1', desired: 'shutdown' });
    assert.deepEqual(created(planService({ service: svc, tasks: [stopped], nodes: nodes(node('n1')), nowNs: T0 })).map((x) => x.nodeId), ['n1']);
  });
});

describe('planService: jobs', () => {
  it('runs MaxConcurrent tasks at a time until TotalCompletions completed', () => {
    const svc = service({ Mode: { ReplicatedJob: { MaxConcurrent: 2, TotalCompletions: 3 } } }, { jobStatus: { iteration: 0, lastExecution: at(0) } });
    const first = planService({ service: svc, tasks: [], nodes: nodes(node('n1')), nowNs: T0 });
    assert.deepEqual(created(first).map((t) => [t.slot, t.desiredState]), [
      [1, 'complete'],
      [2, 'complete'],
    ]);
    const done = [task(svc, 1, 'complete', { desired: 'complete' }), task(svc, 2, 'running', { desired: 'complete' })];
    done.forEach((t) => (t.value.jobIteration = 0));
    assert.deepEqual(created(planService({ service: svc, tasks: done, nodes: nodes(node('n1')), nowNs: T0 })).map((t) => t.slot), [3]);
    const all = [task(svc, 1, 'complete', { desired: 'complete' }), task(svc, 2, 'complete', { desired: 'complete' }), task(svc, 3, 'complete', { desired: 'complete' })];
    all.forEach((t) => (t.value.jobIteration = 0));
    assert.equal(planService({ service: svc, tasks: all, nodes: nodes(node('n1')), nowNs: T0 }).writes.length, 0);
  });
});

describe('planService: global jobs', () => {
  it('runs one task on each active node, once: a node whose task completed gets no other', () => {
    const svc = service({ Mode: { GlobalJob: {} } }, { jobStatus: { iteration: 0, lastExecution: at(0) } });
    const first = planService({ service: svc, tasks: [], nodes: nodes(node('n1'), node('n2'), node('n3', 'ready', 'drain')), nowNs: T0 });
    assert.deepEqual(created(first).map((t) => [t.nodeId, t.desiredState]), [
      ['n1', 'complete'],
      ['n2', 'complete'],
    ]);
    const done = [task(svc, 0, 'complete', { nodeId: 'n1', desired: 'complete' }), task(svc, 0, 'running', { nodeId: 'n2', desired: 'complete' })];
    done.forEach((t) => (t.value.jobIteration = 0));
    assert.deepEqual(planService({ service: svc, tasks: done, nodes: nodes(node('n1'), node('n2')), nowNs: T0 }).writes, []);
  });
});

describe('planService: rolling update', () => {
  const old = template('busybox:old');
  const updateConfig = { Parallelism: 1, Delay: 2000 * 1e6, MaxFailureRatio: 0, Monitor: 1000 * 1e6, FailureAction: 'pause' as const, Order: 'stop-first' as const };

  it('stops one outdated task at a time (stop-first), then replaces it once it has stopped', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 2 } }, UpdateConfig: updateConfig });
    const [a, b] = [task(svc, 1, 'running', { spec: old }), task(svc, 2, 'running', { spec: old })];
    const plan = planService({ service: svc, tasks: [a, b], nodes: nodes(node('n1')), nowNs: T0 });
    assert.equal(plan.service?.updateStatus?.state, 'updating');
    assert.equal(plan.service?.updateStatus?.message, 'update in progress');
    assert.deepEqual(desired(plan), { [a.value.id]: 'shutdown' });
    assert.equal(plan.batchStarted, true);
    const updating = { ...svc, value: plan.service! };
    const stopped = task(svc, 1, 'shutdown', { spec: old, desired: 'shutdown' });
    const next = planService({ service: updating, tasks: [stopped, b], nodes: nodes(node('n1')), nowNs: T0 + 100n * MS, lastBatchMs: Number(T0 / MS) });
    assert.deepEqual(created(next).map((t) => [t.slot, t.spec.ContainerSpec?.Image]), [[1, 'busybox']]);
    // the second batch waits for the first's task to run, and then for the delay
    assert.deepEqual(desired(next), {});
  });

  it('starts the new task first under start-first, and stops the old one once the new one runs', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 1 } }, UpdateConfig: { ...updateConfig, Order: 'start-first' } });
    const a = task(svc, 1, 'running', { spec: old, createdMs: 1 });
    const plan = planService({ service: svc, tasks: [a], nodes: nodes(node('n1')), nowNs: T0 });
    assert.deepEqual(created(plan).map((t) => t.slot), [1]);
    assert.deepEqual(desired(plan), {});
    const fresh = task(svc, 1, 'running', { createdMs: 2, runningMs: 50 });
    const after = planService({ service: { ...svc, value: plan.service! }, tasks: [a, fresh], nodes: nodes(node('n1')), nowNs: T0 + 100n * MS, lastBatchMs: Number(T0 / MS) });
    assert.deepEqual(desired(after), { [a.value.id]: 'shutdown' });
  });

  it('completes once no task is outdated and the last new one ran for Monitor', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 1 } }, UpdateConfig: updateConfig }, { updateStatus: { state: 'updating', startedAt: at(0), message: 'update in progress' } });
    const fresh = task(svc, 1, 'running', { createdMs: 10, runningMs: 100 });
    const early = planService({ service: svc, tasks: [fresh], nodes: nodes(node('n1')), nowNs: T0 + 500n * MS });
    assert.equal(early.service, undefined);
    assert.equal(early.wakeInMs, 600);
    const done = planService({ service: svc, tasks: [fresh], nodes: nodes(node('n1')), nowNs: T0 + 1200n * MS });
    assert.equal(done.service?.updateStatus?.state, 'completed');
    assert.equal(done.service?.updateStatus?.message, 'update completed');
  });

  it('pauses when a new task fails (FailureAction pause), naming it', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 2 } }, UpdateConfig: updateConfig }, { updateStatus: { state: 'updating', startedAt: at(0), message: 'update in progress' } });
    const failed = task(svc, 1, 'failed', { createdMs: 10, statusMs: 200 });
    const outdated = task(svc, 2, 'running', { spec: old });
    const plan = planService({ service: svc, tasks: [failed, outdated], nodes: nodes(node('n1')), nowNs: T0 + 300n * MS });
    assert.equal(plan.service?.updateStatus?.state, 'paused');
    assert.equal(plan.service?.updateStatus?.message, `update paused due to failure or early termination of task ${failed.value.id}`);
    assert.deepEqual(desired(plan), {});
  });

  it('rolls back to the previous spec when the FailureAction says so', () => {
    const prev: ServiceSpec = { Name: 'web', Labels: {}, TaskTemplate: old, Mode: { Replicated: { Replicas: 2 } } };
    const svc = service({ Mode: { Replicated: { Replicas: 2 } }, UpdateConfig: { ...updateConfig, FailureAction: 'rollback' } }, { previousSpec: prev, updateStatus: { state: 'updating', startedAt: at(0), message: 'update in progress' } });
    const failed = task(svc, 1, 'failed', { createdMs: 10, statusMs: 200 });
    const plan = planService({ service: svc, tasks: [failed, task(svc, 2, 'running', { spec: old })], nodes: nodes(node('n1')), nowNs: T0 + 300n * MS });
    assert.equal(plan.service?.updateStatus?.state, 'rollback_started');
    assert.deepEqual(plan.service?.spec, prev);
    assert.deepEqual(plan.service?.previousSpec, svc.value.spec);
  });

  it('does not take a restart after an update for another update', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 1 } }, UpdateConfig: updateConfig }, { updateStatus: { state: 'rollback_completed', startedAt: at(0), completedAt: at(5), message: 'rollback completed' } });
    const restarted = task(svc, 1, 'pending', { createdMs: 10 });
    const plan = planService({ service: svc, tasks: [restarted], nodes: nodes(node('n1')), nowNs: T0 + 100n * MS });
    assert.equal(plan.service, undefined);
  });

  it('makes no task of a failed update’s spec once it rolls back: the failed one is the rollback’s to replace', () => {
    const prev: ServiceSpec = { Name: 'web', Labels: {}, TaskTemplate: old, Mode: { Replicated: { Replicas: 1 } } };
    const svc = service({ Mode: { Replicated: { Replicas: 1 } }, TaskTemplate: template('busybox', { RestartPolicy: { Condition: 'any', Delay: 0, MaxAttempts: 0 } }), UpdateConfig: { ...updateConfig, FailureAction: 'rollback' } }, { previousSpec: prev, updateStatus: { state: 'updating', startedAt: at(0), message: 'update in progress' } });
    const failed = task(svc, 1, 'failed', { createdMs: 10, statusMs: 200 });
    const plan = planService({ service: svc, tasks: [failed], nodes: nodes(node('n1')), nowNs: T0 + 300n * MS });
    assert.equal(plan.service?.updateStatus?.state, 'rollback_started');
    assert.deepEqual(created(plan), []);
    assert.deepEqual(desired(plan), { [failed.value.id]: 'shutdown' });
    const next = planService({ service: { ...svc, value: plan.service! }, tasks: [{ ...failed, value: { ...failed.value, desiredState: 'shutdown' } }], nodes: nodes(node('n1')), nowNs: T0 + 400n * MS });
    assert.deepEqual(created(next).map((t) => t.spec.ContainerSpec?.Image), ['busybox:old']);
  });

  it('leaves the tasks alone when only the replicas changed', () => {
    const svc = service({ Mode: { Replicated: { Replicas: 1 } } });
    const plan = planService({ service: svc, tasks: [task(svc, 1, 'running')], nodes: nodes(node('n1')), nowNs: T0 });
    assert.deepEqual(plan.writes, []);
    assert.equal(plan.service, undefined);
  });
});
