// What the cluster store holds of the swarm and its nodes (docs/design/swarm.md, "Cluster store"),
// one JSON document per object; an object's Version.Index is its key's modification revision, so
// it is not part of the document.
import type { NodeRole } from '../ca/swarm-ca.js';

export interface LogDriverSpec {
  name: string;
  options: Record<string, string>;
}

/** The swarm's spec as a client set it last: `swarm update` replaces it whole (dockerd keeps zeros as given). */
export interface SwarmSpec {
  name: string;
  labels: Record<string, string>;
  taskHistoryRetentionLimit: number;
  raft: { snapshotInterval: number; keepOldSnapshots: number; logEntriesForSlowFollowers: number; electionTick: number; heartbeatTick: number };
  /** 0: unset, the default period applies */
  heartbeatPeriodNs: number;
  ca: { nodeCertExpiryNs: number; externalCas: unknown[]; signingCaCert: string; signingCaKey: string; forceRotate: number };
  taskDefaults: { logDriver?: LogDriverSpec };
  autoLockManagers: boolean;
}

export interface ClusterRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: SwarmSpec;
  /** the root CA, its key encrypted with the managers' data key (ca/sealing.ts) */
  rootCa: { certPem: string; encryptedKey: string };
  joinSecrets: { worker: string; manager: string };
  /** SWMKEY-1-… encrypted with the managers' data key, or '' when autolock is off */
  encryptedUnlockKey: string;
  dataPathPort: number;
  defaultAddrPool: string[] | null;
  subnetSize: number;
}

export type Availability = 'active' | 'pause' | 'drain';
export type NodeState = 'unknown' | 'down' | 'ready' | 'disconnected';

export interface NodeDescription {
  hostname: string;
  platform: { architecture: string; os: string };
  resources: { nanoCpus: number; memoryBytes: number };
  engine: { engineVersion: string; labels: Record<string, string>; plugins: Array<{ type: string; name: string }> };
}

export interface NodeRecord {
  id: string;
  createdAt: string;
  updatedAt: string;
  spec: { name: string; labels: Record<string, string>; role: NodeRole; availability: Availability };
  /** the role the node has now (the spec's is the one asked for) */
  role: NodeRole;
  description: NodeDescription;
  status: { state: NodeState; message: string; addr: string };
  /** a manager's cluster address (host:port) */
  managerAddr?: string;
  /** host:port where managers reach the node's own port (its tasks' logs): the address it advertises, kept by its heartbeats */
  advertiseAddr?: string;
  /** the peer URL of a manager's etcd member, once it asked for one */
  etcdPeerUrl?: string;
}

/** A node's session: present while the node's heartbeats reach a manager (the key lives on a lease). */
export interface SessionRecord {
  nodeId: string;
  /** the manager that holds it */
  managerId: string;
}
