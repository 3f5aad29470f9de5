// The scheduler's placements and refusals (scheduler.ts), with swarmkit's words for a task no
// node takes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Versioned } from '../cluster/cluster-state.js';
import type { Availability, NodeRecord, NodeState } from '../cluster/records.js';
import type { TaskRecord, TaskState } from '../services/service-records.js';
import type { TaskSpec } from '../services/service-types.js';
import type { TaskWrite } from '../services/service-state.js';
import { planScheduling } from './scheduler.js';

const NOW = BigInt(Date.parse('2026-11-26T10:00:00Z')) * 1_000_000n;

function node(id: string, opts: { state?: NodeState; availability?: Availability; labels?: Record<string, string>; memory?: number } = {}): NodeRecord {
  return {
    id,
    createdAt: '2026-11-26T10:00:00Z',
    updatedAt: '2026-11-26T10:00:00Z',
    spec: { name: '', labels: opts.labels ?? {}, role: 'worker', availability: opts.availability ?? 'active' },
    role: 'worker',
    description: { hostname: `host-${id}`, platform: { architecture: 'x86_64', os: 'linux' }, resources: { nanoCpus: 2e9, memoryBytes: opts.memory ?? 2 ** 30 }, engine: { engineVersion: '1', labels: {}, plugins: [] } },
    status: { state: opts.state ?? 'ready', message: '', addr: '10.0.0.1' },
  };
}

let n = 0;
function task(serviceId: string, state: TaskState, spec: Partial<TaskSpec> = {}, nodeId = ''): Versioned<TaskRecord> {
  n++;
  return {
    version: n,
    value: {
      id: `t${String(n).padStart(3, '0')}`,
      createdAt: `2026-11-26T10:00:00.${String(n).padStart(3, '0')}Z`,
      updatedAt: '2026-11-26T10:00:00Z',
      serviceId,
      serviceAnnotations: { name: serviceId, labels: {} },
      slot: n,
      nodeId,
      spec: { ContainerSpec: { Image: 'busybox', Isolation: 'default' }, ForceUpdate: 0, ...spec },
      status: { timestamp: '2026-11-26T10:00:00Z', state, message: '' },
      desiredState: 'running',
      networks: [],
    },
  };
}

const placed = (writes: TaskWrite[]) => writes.map((w) => ('put' in w ? [w.put.id, w.put.status.state, w.put.nodeId, w.put.status.err ?? ''] : []));

describe('planScheduling', () => {
  it('waits for the allocator to give a task its addresses', () => {
    const unallocated = task('s', 'new');
    delete unallocated.value.networks;
    assert.deepEqual(planScheduling([unallocated], [node('n1')], NOW), []);
  });

  it('spreads a service over the nodes with the fewest of its tasks', () => {
    const tasks = [task('s', 'new'), task('s', 'new'), task('s', 'new')];
    const writes = planScheduling(tasks, [node('a'), node('b'), node('c')], NOW);
    assert.deepEqual(writes.map((w) => ('put' in w ? w.put.nodeId : '')).sort(), ['a', 'b', 'c']);
    assert.ok(writes.every((w) => 'put' in w && w.put.status.state === 'assigned' && w.put.status.message === 'scheduler assigned task to node'));
  });

  it('places by constraints and spread preferences', () => {
    const spec = { Placement: { Constraints: ['node.role==worker', 'node.labels.disk==ssd'], Preferences: [{ Spread: { SpreadDescriptor: 'node.labels.zone' } }] } };
    const tasks = [task('s', 'new', spec), task('s', 'new', spec)];
    const nodes = [node('a', { labels: { disk: 'ssd', zone: '1' } }), node('b', { labels: { disk: 'ssd', zone: '1' } }), node('c', { labels: { disk: 'ssd', zone: '2' } }), node('d', { labels: { zone: '2' } })];
    const zones = planScheduling(tasks, nodes, NOW).map((w) => ('put' in w ? nodes.find((x) => x.id === w.put.nodeId)!.spec.labels.zone : ''));
    assert.deepEqual(zones.sort(), ['1', '2']);
  });

  it('leaves a task pending with the reasons of each node, in swarmkit words', () => {
    const t = task('s', 'new', { Placement: { Constraints: ['node.labels.x==y'] }, Resources: { Reservations: { MemoryBytes: 2 ** 29 } } });
    const nodes = [node('a', { availability: 'drain' }), node('b', { state: 'down' }), node('c', { memory: 2 ** 20 }), node('d'), node('e')];
    assert.deepEqual(placed(planScheduling([t], nodes, NOW)), [[t.value.id, 'pending', '', 'no suitable node (2 nodes not available for new tasks; insufficient resources on 1 node; scheduling constraints not satisfied on 2 nodes)']]);
    // unchanged reasons are not written again
    const pending = { ...t, value: { ...t.value, status: { ...t.value.status, state: 'pending' as const, err: 'no suitable node (2 nodes not available for new tasks; insufficient resources on 1 node; scheduling constraints not satisfied on 2 nodes)' } } };
    assert.deepEqual(planScheduling([pending], nodes, NOW), []);
  });

  it('counts the resources and host ports of tasks already placed, and MaxReplicas', () => {
    const running = task('s', 'running', { Resources: { Reservations: { MemoryBytes: 2 ** 29 } } }, 'a');
    const next = task('s', 'new', { Resources: { Reservations: { MemoryBytes: 2 ** 29 + 1 } } });
    assert.deepEqual(placed(planScheduling([running, next], [node('a')], NOW)), [[next.value.id, 'pending', '', 'no suitable node (insufficient resources on 1 node)']]);
    const capped = task('s', 'new', { Placement: { MaxReplicas: 1 } });
    const other = task('s', 'running', {}, 'a');
    assert.deepEqual(placed(planScheduling([other, capped], [node('a')], NOW)), [[capped.value.id, 'pending', '', 'no suitable node (max replicas per node limit exceed)']]);
  });

  it('keeps a host port taken until the task holding it has stopped, even while it is asked to', () => {
    const stopping = task('s', 'running', {}, 'a');
    stopping.value.desiredState = 'remove';
    stopping.value.endpoint = { ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode: 'host' }], virtualIps: [] };
    const next = task('s', 'pending');
    next.value.endpoint = stopping.value.endpoint;
    assert.deepEqual(placed(planScheduling([stopping, next], [node('a')], NOW)), [[next.value.id, 'pending', '', 'no suitable node (host-mode port already in use on 1 node)']]);
  });

  it('checks a global task on its own node only', () => {
    const t = task('g', 'new', {}, 'b');
    assert.deepEqual(placed(planScheduling([t], [node('a'), node('b', { availability: 'pause' })], NOW)), [[t.value.id, 'pending', 'b', 'no suitable node (1 node not available for new tasks)']]);
  });
});
