// The leader's orchestration: one loop over the services, their tasks and the nodes (a pass after
// each change and each period, reconcile-loop.ts), which plans each service's tasks
// (plan-service.ts), removes the tasks of services gone and reaps old ones (task-reaper.ts), gives
// the tasks that wait for a node their addresses (allocator/plan-allocation.ts), then places them
// (scheduler.ts). Every write compares versions: a pass
// that lost a race to an agent's report or an API call runs again.
import type { Logger } from 'pino';
import { nowNanos } from '../../lib/timestamp.js';
import type { ClusterState } from '../cluster/cluster-state.js';
import { allocateNodeAttachments } from '../allocator/node-attachments.js';
import { planAllocation } from '../allocator/plan-allocation.js';
import { networks } from '../networks/network-control.js';
import { ReconcileLoop } from '../manager/reconcile-loop.js';
import type { ServiceState, TaskWrite } from '../services/service-state.js';
import { planRemoval, planService } from './plan-service.js';
import { planReaping } from './task-reaper.js';
import { planScheduling } from './scheduler.js';
import { groupBy } from '../../lib/group-by.js';

export function orchestrator(services: ServiceState, periodMs: () => number, log: Logger): ReconcileLoop {
  /** when this leader last started a batch of each service's update: its Delay counts from then */
  const lastBatch = new Map<string, number>();
  const loop: ReconcileLoop = new ReconcileLoop(
    'orchestrator',
    () => pass(services, lastBatch, loop),
    (onChange) => {
      const watches = [...services.watch(onChange), services.cluster.watchNodes(0, onChange)];
      return { cancel: () => watches.forEach((w) => w.cancel()) };
    },
    periodMs,
    log,
  );
  return loop;
}

async function pass(services: ServiceState, lastBatch: Map<string, number>, loop: ReconcileLoop): Promise<void> {
  const state: ClusterState = services.cluster;
  const [all, tasks, nodeList, cluster] = await Promise.all([services.services(), services.tasks(), state.nodes(), state.cluster()]);
  const nodes = new Map(nodeList.map((n) => [n.value.id, n.value]));
  const byService = groupBy(tasks, (t) => t.value.serviceId);
  const nowNs = nowNanos();
  const write = async (writes: TaskWrite[], service?: Parameters<ServiceState['writeTasks']>[1]) => {
    if (!(await services.writeTasks(writes, service))) loop.passAgain();
  };
  for (const service of all) {
    const plan = planService({ service, tasks: byService.get(service.value.id) ?? [], nodes, nowNs, lastBatchMs: lastBatch.get(service.value.id), defaultLogDriver: cluster.value.spec.taskDefaults.logDriver });
    byService.delete(service.value.id);
    if (plan.batchStarted) lastBatch.set(service.value.id, Date.now());
    if (plan.wakeInMs !== undefined) loop.passIn(plan.wakeInMs);
    await write(plan.writes, plan.service === undefined ? undefined : { version: service.version, record: plan.service });
  }
  for (const [serviceId, orphans] of byService) {
    lastBatch.delete(serviceId);
    await write(planRemoval(orphans, nowNs));
  }
  const now = await services.tasks();
  await write(planReaping(now, nodes, cluster.value.spec.taskHistoryRetentionLimit, nowNs));
  // each allocation and placement on its own: one task's stale version holds no other back
  const swarmNetworks = new Map((await networks(state)).map((n) => [n.value.id, n]));
  const byId = new Map(all.map((s) => [s.value.id, s.value]));
  for (const w of planAllocation(await services.tasks(), byId, swarmNetworks, await services.heldAllocations(), nowNanos())) await write([w]);
  for (const w of planScheduling(await services.tasks(), nodeList.map((n) => n.value), nowNanos())) await write([w]);
  const ingress = [...swarmNetworks.values()].find((n) => n.value.spec.ingress)?.value;
  if (!(await allocateNodeAttachments(state, nodeList.map((n) => n.value.id), ingress, await services.heldAllocations()))) loop.passAgain();
}
