// The messages nodes and managers exchange on the cluster port (2377 by default), as JSON over
// HTTPS with mutual TLS. Not swarmkit's gRPC: berth nodes form swarms with berth nodes only.
// Managers serve the port; every node serves its tasks' logs on it to managers (workers on a
// server of their own, on their listen address).
import type { NodeRole } from '../ca/swarm-ca.js';
import type { NodeDescription } from '../cluster/records.js';
import type { ManagerAddress } from '../local-node.js';
import type { TaskRecord, TaskStatus } from '../services/service-records.js';
import type { TableName } from '../endpoints/network-tables.js';
import type { NetworkRecord } from '../../network/network-record.js';

export const CLUSTER_PATHS = {
  /** the root CA, to anyone: a joining node checks it against its token's digest */
  rootCa: '/v1/ca',
  /** a token and a certificate request: the node's identity */
  join: '/v1/join',
  /** a node's session: its heartbeats */
  heartbeat: '/v1/heartbeat',
  /** a node's new certificate, for its current identity */
  renew: '/v1/renew',
  /** a node leaving the swarm */
  leave: '/v1/leave',
  /** managers only: a new etcd member for a manager being made */
  addMember: '/v1/members',
  /** a node's tasks and what they need, when they differ from what it has (a long poll) */
  assignments: '/v1/assignments',
  /** what a node's tasks did */
  taskStatus: '/v1/task-status',
  /** a node's whole set of network table entries (its endpoints' records) */
  tableEntries: '/v1/table-entries',
  /** an address on an attachable network for a plain container of the node, and its release */
  attachNetwork: '/v1/network-attach',
  detachNetwork: '/v1/network-detach',
  /** on every node, for managers only: a task's log entries, one TaskLogLine a line (NDJSON) */
  taskLogs: '/v1/task-logs',
} as const;

export interface JoinRequest {
  token: string;
  csrPem: string;
  /** host:port other nodes reach it at; empty: the address it connects from */
  advertiseAddr: string;
  listenAddr: string;
  dataPathAddr: string;
  description: NodeDescription;
}

export interface JoinResponse {
  nodeId: string;
  clusterId: string;
  role: NodeRole;
  certPem: string;
  rootCaPem: string;
  /** the address the manager saw it at, host only: what it advertises when it said nothing */
  observedAddr: string;
  managers: ManagerAddress[];
  heartbeatPeriodMs: number;
}

export interface HeartbeatRequest {
  /** host:port */
  advertiseAddr: string;
  description: NodeDescription;
}

export interface HeartbeatResponse {
  heartbeatPeriodMs: number;
  managers: ManagerAddress[];
  /** the role the swarm gives the node now: a promotion or demotion reaches it here */
  role: NodeRole;
  /** the node was removed from the swarm */
  removed: boolean;
}

export interface RenewRequest {
  csrPem: string;
}

export interface RenewResponse {
  certPem: string;
  role: NodeRole;
}

export interface AddMemberRequest {
  /** https://IP:PORT where the new member will serve its peers */
  peerUrl: string;
}

export interface AddMemberResponse {
  /** name=peerURL,… to start the new member with, as 'existing' */
  initialCluster: string;
  /** what the store's revisions read with (store-migration.ts) */
  revisionOffset: number;
  /** the managers' data key (base64), which the store's secrets are encrypted with */
  dataKey: string;
  /** the unlock key, '' without autolock: the new manager seals its keys with it */
  unlockKey: string;
}

/** An error's answer: its kind travels, so that a joining node reports it as the manager said it. */
export interface ErrorBody {
  message: string;
  kind: string;
}

export interface AssignmentsRequest {
  /** the digest of the assignments the node has: the answer waits until they differ */
  known: string;
  /** how long the answer may wait */
  waitMs: number;
}

/** A secret's or config's data, for a task of the node (a secret's in plain text: the channel is the node's TLS session). */
export interface AssignedObject {
  id: string;
  name: string;
  /** base64 */
  data: string;
  templating?: { name: string };
}

export interface Assignments {
  digest: string;
  /** the node's tasks the scheduler placed, whatever their state */
  tasks: TaskRecord[];
  secrets: AssignedObject[];
  configs: AssignedObject[];
  /** the swarm networks those tasks join, as the managers show them */
  networks: NetworkRecord[];
  /** those networks' tables, every node's entries, values base64 */
  tables: Record<string, Partial<Record<TableName, WireEntry[]>>>;
  /** the node's session (its lease): a new one has none of the node's entries, which it publishes again */
  session: string;
  /** the swarm's VXLAN port (DataPathPort) */
  dataPathPort: number;
  /** the named ports of the services on those networks, for DNS SRV answers */
  servicePorts: ServicePorts[];
  /** the node's address on the ingress network, for its routing mesh (none until the leader gave one) */
  ingress?: { networkId: string; address: string };
  /** every service's ports published through the routing mesh: each node holds them */
  ingressPorts: IngressPort[];
}

export interface IngressPort {
  protocol: 'tcp' | 'udp' | 'sctp';
  publishedPort: number;
  targetPort: number;
}

export interface ServicePorts {
  serviceId: string;
  ports: Array<{ name: string; protocol: 'tcp' | 'udp' | 'sctp'; targetPort: number }>;
}

export interface WireEntry {
  key: string;
  /** base64 */
  value: string;
  /** the address of the node that wrote it (NetworkDB's owner), '' in a node's own publication */
  owner?: string;
}

export interface TableEntriesRequest {
  entries: Array<{ networkId: string; table: TableName } & WireEntry>;
}

export interface NetworkAttachRequest {
  /** the network's ID, name or ID prefix, as the container names it */
  target: string;
  containerId: string;
}

export interface NetworkAttachResponse {
  network: NetworkRecord;
  /** with its prefix length */
  address: string;
}

export interface NetworkDetachRequest {
  containerId: string;
}

export interface TaskStatusReport {
  taskId: string;
  status: TaskStatus;
}

export interface TaskStatusRequest {
  reports: TaskStatusReport[];
}

export interface TaskLogsRequest {
  taskId: string;
  stdout: boolean;
  stderr: boolean;
  /** nanoseconds since the epoch, in decimal */
  sinceNs?: string;
  tail?: number;
  follow: boolean;
}

export interface TaskLogLine {
  stream: 'stdout' | 'stderr';
  /** nanoseconds since the epoch, in decimal */
  timeNs: string;
  /** base64 */
  data: string;
}
