// A service's ServiceStatus (API 1.41, `GET /services?status=true`), as dockerd 20.10 counts it
// (daemon/cluster/services.go): running tasks on nodes that are not down, the tasks it wants
// (a replicated service's replicas; a global one's tasks meant to run; a job's that may still
// run), and for jobs the tasks that completed.
import type { NodeRecord } from '../cluster/records.js';
import type { ServiceRecord, TaskRecord } from './service-records.js';

export interface ServiceCounts {
  running: number;
  desired: number;
  completed: number;
}

export function serviceCounts(service: ServiceRecord, tasks: readonly TaskRecord[], nodes: ReadonlyMap<string, NodeRecord>): ServiceCounts {
  const mine = tasks.filter((t) => t.serviceId === service.id);
  const up = (t: TaskRecord) => nodes.get(t.nodeId) !== undefined && nodes.get(t.nodeId)!.status.state !== 'down';
  const running = mine.filter((t) => t.status.state === 'running' && up(t)).length;
  const iteration = service.jobStatus?.iteration ?? 0;
  const completed = mine.filter((t) => t.status.state === 'complete' && (t.jobIteration ?? 0) === iteration).length;
  const mode = service.spec.Mode;
  let desired: number;
  if (mode.Replicated !== undefined) desired = mode.Replicated.Replicas ?? 1;
  else if (mode.ReplicatedJob !== undefined) {
    const max = mode.ReplicatedJob.MaxConcurrent ?? 1;
    desired = Math.max(0, Math.min(max, (mode.ReplicatedJob.TotalCompletions ?? max) - completed));
  } else desired = mine.filter((t) => (t.desiredState === 'running' || t.desiredState === 'complete') && up(t) && t.status.state !== 'complete').length;
  return { running, desired, completed };
}
