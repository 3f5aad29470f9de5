// swarmkit's task reaper: tasks asked to be removed go once they have stopped (or never started,
// or their node is gone or down), and each slot keeps TaskHistoryRetentionLimit tasks at most,
// its oldest stopped ones deleted first. And its dispatcher's rule for the tasks of a node down
// for 24 hours: they are `orphaned`. A task deleted gives its addresses back.
import { formatRfc3339Nano } from '../../lib/timestamp.js';
import { taskAddressKeys } from '../allocator/plan-allocation.js';
import type { Versioned } from '../cluster/cluster-state.js';
import type { NodeRecord } from '../cluster/records.js';
import { hasEnded, stateRank, type TaskRecord } from '../services/service-records.js';
import type { TaskWrite } from '../services/service-state.js';
import { groupBy } from '../../lib/group-by.js';

const ORPHANED_AFTER_MS = 24 * 60 * 60 * 1000;

export function planReaping(tasks: ReadonlyArray<Versioned<TaskRecord>>, nodes: ReadonlyMap<string, NodeRecord>, retention: number, nowNs: bigint): TaskWrite[] {
  const writes: TaskWrite[] = [];
  const nowMs = Number(nowNs / 1_000_000n);
  const gone = (t: TaskRecord) => {
    const node = nodes.get(t.nodeId);
    return t.nodeId === '' || node === undefined || node.status.state === 'down' || stateRank(t.status.state) < stateRank('assigned') || hasEnded(t.status.state);
  };
  const kept: Array<Versioned<TaskRecord>> = [];
  for (const task of tasks) {
    const t = task.value;
    if (t.desiredState === 'remove' && gone(t)) {
      writes.push({ delete: t.id, version: task.version, release: taskAddressKeys(t) });
      continue;
    }
    kept.push(task);
    const node = nodes.get(t.nodeId);
    // as swarmkit's dispatcher: only a task that could have gone on meanwhile (assigned to running), its status otherwise kept
    const couldRun = stateRank(t.status.state) >= stateRank('assigned') && !hasEnded(t.status.state);
    if (node?.status.state === 'down' && couldRun && nowMs - Date.parse(node.updatedAt) >= ORPHANED_AFTER_MS) {
      writes.push({ put: { ...t, updatedAt: formatRfc3339Nano(nowNs), status: { ...t.status, state: 'orphaned' } }, version: task.version });
    }
  }
  if (retention < 0) return writes;
  const slots = groupBy(kept, (task) => `${task.value.serviceId}/${task.value.slot === 0 ? task.value.nodeId : task.value.slot}`);
  for (const slot of slots.values()) {
    if (slot.length <= retention) continue;
    const stopped = slot.filter((t) => hasEnded(t.value.status.state) && (t.value.desiredState === 'shutdown' || t.value.desiredState === 'remove')).sort((a, b) => a.value.createdAt.localeCompare(b.value.createdAt));
    for (const t of stopped.slice(0, slot.length - retention)) writes.push({ delete: t.value.id, version: t.version, release: taskAddressKeys(t.value) });
  }
  return writes;
}
