// Services and tasks in the cluster store: one document per object under /services/<id> and
// /tasks/<id>, a service's name key beside it (/names/services/<name>) in the same transaction.
// A service's spec is kept as the client sent it (service-types.ts); a task keeps the task spec it
// was made from, and one that differs from the service's now is outdated (swarmkit's IsTaskDirty).
import type { LogDriverSpec } from '../cluster/records.js';
import type { SwarmNetworkRecord } from '../networks/network-records.js';
import type { EndpointSpec, PortConfig, ServiceSpec, TaskSpec, ServiceMode } from './service-types.js';

export const SERVICES = '/services/';
export const TASKS = '/tasks/';

export function serviceNameKey(name: string): string {
  return `/names/services/${name}`;
}

/** swarmkit's TaskState, in its order: a task's state only ever moves to a later one. */
export const TASK_STATES = ['new', 'pending', 'assigned', 'accepted', 'preparing', 'ready', 'starting', 'running', 'complete', 'shutdown', 'failed', 'rejected', 'remove', 'orphaned'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export function stateRank(state: TaskState): number {
  return TASK_STATES.indexOf(state);
}

export function isLaterState(next: TaskState, than: TaskState): boolean {
  return stateRank(next) > stateRank(than);
}

/** A task that ran and stopped, or never will (complete, shutdown, failed, rejected, remove, orphaned). */
export function hasEnded(state: TaskState): boolean {
  return stateRank(state) > stateRank('running');
}

export type UpdateState = 'updating' | 'paused' | 'completed' | 'rollback_started' | 'rollback_paused' | 'rollback_completed';

export interface UpdateStatus {
  state: UpdateState;
  startedAt: string;
  completedAt?: string;
  message: string;
}

export interface ServiceRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: ServiceSpec;
  previousSpec?: ServiceSpec;
  updateStatus?: UpdateStatus;
  /** the endpoint as allocated: its spec (none when the service has none), the ports as published
   * (host mode: as asked), a virtual IP on each network (vip mode) */
  endpoint: { spec?: EndpointSpec; ports: PortConfig[]; virtualIps: VirtualIp[] };
  /** registry credentials the service was created or updated with (X-Registry-Auth), for its nodes' pulls */
  registryAuth?: string;
  /** jobs: the iteration (raised by each update) and when it began */
  jobStatus?: { iteration: number; lastExecution: string };
}

export interface VirtualIp {
  networkId: string;
  /** "10.0.0.2/24" */
  addr: string;
}

export interface ContainerStatus {
  containerId: string;
  pid: number;
  exitCode: number;
}

export interface TaskStatus {
  timestamp: string;
  state: TaskState;
  message: string;
  err?: string;
  containerStatus?: ContainerStatus;
  /** host-mode ports as the node published them */
  portStatus?: PortConfig[];
}

export type DesiredState = 'running' | 'ready' | 'complete' | 'shutdown' | 'remove';

export interface TaskRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  serviceId: string;
  /** the service's name and labels when the task was made */
  serviceAnnotations: { name: string; labels: Record<string, string> };
  /** replicated services' and jobs' slot, from 1; 0 for global ones (one task per node) */
  slot: number;
  nodeId: string;
  spec: TaskSpec;
  endpoint?: ServiceRecord['endpoint'];
  status: TaskStatus;
  desiredState: DesiredState;
  jobIteration?: number;
  /** the registry credentials of the service when the task was made */
  registryAuth?: string;
  /** when it reached `running`: the updater watches it for Monitor from then */
  runningAt?: string;
  /** the swarm's default log driver (TaskDefaults) when the task spec names none, as swarmkit's Task.LogDriver */
  logDriver?: LogDriverSpec;
  /** its networks and its address on each, given before it is scheduled; none until then */
  networks?: TaskAttachment[];
}

/** A network as it was when the task's address was given (swarmkit keeps that copy in the task), its version then, the address. */
export interface TaskAttachment {
  network: SwarmNetworkRecord;
  version: number;
  /** "10.0.1.5/24" */
  addresses: string[];
}

/** A service's mode as dockerd names it (the `mode` filter, the mode-change check). */
export function modeName(mode: ServiceMode): 'replicated' | 'global' | 'replicated-job' | 'global-job' {
  if (mode.Global !== undefined) return 'global';
  if (mode.ReplicatedJob !== undefined) return 'replicated-job';
  if (mode.GlobalJob !== undefined) return 'global-job';
  return 'replicated';
}

export function isJob(mode: ServiceMode): boolean {
  return mode.ReplicatedJob !== undefined || mode.GlobalJob !== undefined;
}

/** swarmkit's naming.Task, its container's name: `<service>.<slot>.<task>`, a global service's `<service>.<node>.<task>`. */
export function taskName(task: TaskRecord): string {
  return `${task.serviceAnnotations.name}.${task.slot === 0 ? task.nodeId : task.slot}.${task.id}`;
}

/** A task made from another spec than its service's now (swarmkit's IsTaskDirty): the updater replaces it. */
export function isTaskDirty(task: TaskRecord, service: ServiceRecord): boolean {
  return JSON.stringify(task.spec) !== JSON.stringify(service.spec.TaskTemplate) || JSON.stringify(task.endpoint?.ports ?? []) !== JSON.stringify(service.endpoint.ports);
}
