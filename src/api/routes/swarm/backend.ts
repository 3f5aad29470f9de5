// What the Swarm and Node routes need from the engine (the swarm area serves it).
import type { FilterArgs } from '../../../lib/filters.js';
import type { SwarmView } from '../../../swarm/manager/cluster-control.js';
import type { NodeView } from '../../../swarm/manager/node-control.js';
import type { TlsInfoView } from '../../../swarm/ca/swarm-ca.js';
import type { ObjectView } from '../../../swarm/objects/secret-control.js';
import type { ObjectKind } from '../../../swarm/objects/secret-records.js';

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
  /** What the calls of areas still to come (services, tasks) check first: dockerd's 503 off a manager. */
  requireManager(): void;
  /** secrets and configs, the same calls for each kind */
  objects(kind: ObjectKind): ObjectBackend;
}

export interface ObjectBackend {
  list(filters: FilterArgs): Promise<ObjectView[]>;
  create(body: unknown): Promise<string>;
  inspect(id: string): Promise<ObjectView>;
  update(id: string, version: string | null, body: unknown): Promise<void>;
  remove(id: string): Promise<void>;
}
