// A new task for a service's slot (or, for a global service, its node), as swarmkit's
// orchestrator makes one: state `new` ("created"), the service's current task spec, the swarm's
// default log driver when that spec names none.
import { formatRfc3339Nano } from '../../lib/timestamp.js';
import { newSwarmId } from '../ids.js';
import type { LogDriverSpec } from '../cluster/records.js';
import type { DesiredState, ServiceRecord, TaskRecord } from '../services/service-records.js';

export function newTask(service: ServiceRecord, slot: number, nodeId: string, nowNs: bigint, desiredState: DesiredState, defaultLogDriver?: LogDriverSpec): TaskRecord {
  const at = formatRfc3339Nano(nowNs);
  return {
    id: newSwarmId(),
    createdAt: at,
    updatedAt: at,
    serviceId: service.id,
    serviceAnnotations: { name: service.spec.Name, labels: service.spec.Labels ?? {} },
    slot,
    nodeId,
    spec: service.spec.TaskTemplate,
    endpoint: service.endpoint,
    status: { timestamp: at, state: 'new', message: 'created' },
    desiredState,
    ...(service.jobStatus !== undefined ? { jobIteration: service.jobStatus.iteration } : {}),
    ...(service.registryAuth !== undefined ? { registryAuth: service.registryAuth } : {}),
    ...(service.spec.TaskTemplate.LogDriver === undefined && defaultLogDriver !== undefined ? { logDriver: defaultLogDriver } : {}),
  };
}
