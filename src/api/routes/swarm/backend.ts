// What the Swarm and Node routes need from the engine (the swarm area serves it).
import type { FilterArgs } from '../../../lib/filters.js';
import type { SwarmView } from '../../../swarm/manager/cluster-control.js';
import type { NodeView } from '../../../swarm/manager/node-control.js';
import type { TlsInfoView } from '../../../swarm/ca/swarm-ca.js';
import type { ObjectView } from '../../../swarm/objects/secret-control.js';
import type { ObjectKind } from '../../../swarm/objects/secret-records.js';
import type { Versioned } from '../../../swarm/cluster/cluster-state.js';
import type { ServiceRecord, TaskRecord } from '../../../swarm/services/service-records.js';
import type { ServiceCounts } from '../../../swarm/services/service-status.js';
import type { ServiceBehaviours } from '../../../swarm/services/service-spec.js';
import type { LogSelector, LogsRequest, LogsSession } from '../../../swarm/manager/log-broker.js';

export interface SwarmRotations {
  workerToken: boolean;
  managerToken: boolean;
  unlockKey: boolean;
}

export interface SwarmBackend {
  /** the new node's ID */
  init(body: unknown): Promise<string>;
  join(body: unknown): Promise<void>;
  leave(force: boolean): Promise<void>;
  inspect(): Promise<SwarmView>;
  update(version: string | null, body: unknown, rotate: SwarmRotations): Promise<void>;
  unlockKey(): Promise<string>;
  unlock(body: unknown): Promise<void>;
  /** the nodes, and the TLSInfo of the root CA that issued their certificates */
  listNodes(filters: FilterArgs): Promise<{ nodes: NodeView[]; tlsInfo: TlsInfoView }>;
  inspectNode(id: string): Promise<{ node: NodeView; tlsInfo: TlsInfoView }>;
  updateNode(id: string, version: string | null, body: unknown): Promise<void>;
  removeNode(id: string, force: boolean): Promise<void>;
  /** secrets and configs, the same calls for each kind */
  objects(kind: ObjectKind): ObjectBackend;
  services: ServiceBackend;
}

/** A create's or update's request as the route has it: the body, the request's API version, X-Registry-Auth undecoded. */
export interface ServiceRequest {
  body: unknown;
  api: ServiceBehaviours;
  registryAuth: string | undefined;
}

export interface ServiceBackend {
  /** with `status`, each service's task counts (ServiceStatus) */
  list(filters: FilterArgs, status: boolean): Promise<Array<{ service: Versioned<ServiceRecord>; status?: ServiceCounts }>>;
  create(req: ServiceRequest): Promise<{ id: string; warnings: string[] }>;
  /** with `insertDefaults`, the spec with what its unset fields mean (swarmkit's defaults) */
  inspect(id: string, insertDefaults: boolean): Promise<Versioned<ServiceRecord>>;
  update(id: string, version: string | null, req: ServiceRequest & { rollback: string | null; registryAuthFrom: string | null }): Promise<{ warnings: string[] }>;
  remove(id: string): Promise<void>;
  listTasks(filters: FilterArgs): Promise<Array<Versioned<TaskRecord>>>;
  inspectTask(id: string): Promise<Versioned<TaskRecord>>;
  /** a service's or a task's logs, from the nodes that ran its tasks; the selection and the options checked first */
  logs(selector: LogSelector, req: LogsRequest): Promise<LogsSession>;
}

export interface ObjectBackend {
  list(filters: FilterArgs): Promise<ObjectView[]>;
  create(body: unknown): Promise<string>;
  inspect(id: string): Promise<ObjectView>;
  update(id: string, version: string | null, body: unknown): Promise<void>;
  remove(id: string): Promise<void>;
}
