// The task reaper (task-reaper.ts): removed tasks deleted once stopped, each slot's history kept to
// TaskHistoryRetentionLimit, a long-down node's tasks orphaned.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Versioned } from '../cluster/cluster-state.js';
import type { NodeRecord, NodeState } from '../cluster/records.js';
import type { DesiredState, TaskRecord, TaskState } from '../services/service-records.js';
import { planReaping } from './task-reaper.js';

const NOW_MS = Date.parse('2026-11-26T10:00:00Z');
const NOW = BigInt(NOW_MS) * 1_000_000n;

function node(id: string, state: NodeState, updatedAt = '2026-11-26T09:59:00Z'): NodeRecord {
  return {
    id,
    createdAt: updatedAt,
    updatedAt,
    spec: { name: '', labels: {}, role: 'worker', availability: 'active' },
    role: 'worker',
    description: { hostname: id, platform: { architecture: 'x86_64', os: 'linux' }, resources: { nanoCpus: 1e9, memoryBytes: 1e9 }, engine: { engineVersion: '1', labels: {}, plugins: [] } },
    status: { state, message: '', addr: '10.0.0.1' },
  };
}

let n = 0;
function task(slot: number, state: TaskState, desiredState: DesiredState, nodeId = 'a'): Versioned<TaskRecord> {
  n++;
  return {
    version: n,
    value: {
      id: `t${String(n).padStart(2, '0')}`,
      createdAt: `2026-11-26T09:00:${String(n).padStart(2, '0')}Z`,
      updatedAt: '2026-11-26T09:00:00Z',
      serviceId: 's',
      serviceAnnotations: { name: 's', labels: {} },
      slot,
      nodeId,
      spec: { ForceUpdate: 0 },
      status: { timestamp: '2026-11-26T09:00:00Z', state, message: '' },
      desiredState,
    },
  };
}

const deleted = (writes: ReturnType<typeof planReaping>) => writes.filter((w) => 'delete' in w).map((w) => ('delete' in w ? w.delete : ''));

describe('planReaping', () => {
  it('deletes a removed task once it has stopped, or when its node is down, not while it runs', () => {
    const stopped = task(1, 'shutdown', 'remove');
    const running = task(2, 'running', 'remove');
    const onDown = task(3, 'running', 'remove', 'b');
    const nodes = new Map([
      ['a', node('a', 'ready')],
      ['b', node('b', 'down')],
    ]);
    assert.deepEqual(deleted(planReaping([stopped, running, onDown], nodes, 5, NOW)), [stopped.value.id, onDown.value.id]);
  });

  it('keeps TaskHistoryRetentionLimit tasks per slot, the oldest stopped ones going first', () => {
    const history = [task(1, 'failed', 'shutdown'), task(1, 'failed', 'shutdown'), task(1, 'failed', 'shutdown'), task(1, 'running', 'running')];
    const nodes = new Map([['a', node('a', 'ready')]]);
    assert.deepEqual(deleted(planReaping(history, nodes, 2, NOW)), [history[0]!.value.id, history[1]!.value.id]);
    assert.deepEqual(deleted(planReaping(history, nodes, 5, NOW)), []);
  });

  it('orphans the tasks of a node down for 24 hours', () => {
    const t = task(1, 'running', 'running', 'b');
    const nodes = new Map([['b', node('b', 'down', new Date(NOW_MS - 25 * 3600_000).toISOString())]]);
    const writes = planReaping([t], nodes, 5, NOW);
    assert.deepEqual(
      writes.map((w) => ('put' in w ? [w.put.status.state, w.put.status.timestamp] : [])),
      [['orphaned', t.value.status.timestamp]],
    );
  });
});
