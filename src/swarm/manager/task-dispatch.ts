// What the dispatcher gives each node and takes from it, as swarmkit's Assignments and
// UpdateTaskStatus: the tasks placed on the node (from `assigned` on, whatever they became), the
// secrets, configs and networks of those that may still run (and no others), the networks of its
// plain containers on attachable networks and the ingress network (every node has the routing
// mesh), with those networks' tables, the node's address on ingress, the ingress-published ports
// and the services' named ports; the status the node reports, taken only when it moves a task's
// state forward, and the node's table entries (its endpoints' records).
import { createHash } from 'node:crypto';
import { EngineError } from '../../errors.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { decryptSecret } from '../ca/sealing.js';
import { decode, SESSIONS } from '../cluster/cluster-state.js';
import { NODE_ATTACHMENTS, nodeAttachment } from '../allocator/node-attachments.js';
import { ATTACHMENTS, attachedNetworkIds } from './network-attachments.js';
import { networks, serviceNetworks } from '../networks/network-control.js';
import { NETWORKS, networkView } from '../networks/network-records.js';
import { prefixOf, type ObjectKind, type SecretRecord } from '../objects/secret-records.js';
import { hasEnded, isLaterState, SERVICES, stateRank, TASKS, type ServiceRecord, type TaskRecord } from '../services/service-records.js';
import type { ServiceState } from '../services/service-state.js';
import type { AssignedObject, Assignments, ServicePorts, TableEntriesRequest, TaskStatusReport } from '../transport/cluster-protocol.js';
import { ENDPOINT_TABLE, PEER_TABLE, type TableEntry, type TableName, type TablesSnapshot } from '../endpoints/network-tables.js';
import { publishNodeEntries, TABLES_PREFIX, tablesOf } from '../endpoints/table-store.js';

/** How often a status report is tried again when it lost a race to another write of the task. */
const REPORT_ATTEMPTS = 5;

/** The node's assignments once they differ from `known` (its digest), or as they are after `waitMs`. */
export async function waitForAssignments(services: ServiceState, nodeId: string, dek: Buffer, known: string, waitMs: number, signal: AbortSignal): Promise<Assignments> {
  const store = services.cluster.store;
  let changed: () => void = () => undefined;
  const watches = [TASKS, SERVICES, NODE_ATTACHMENTS, ATTACHMENTS, prefixOf('secret'), prefixOf('config'), NETWORKS, TABLES_PREFIX, SESSIONS].map((prefix) => store.watch(prefix, 0, () => changed()));
  try {
    const end = Date.now() + waitMs;
    for (;;) {
      const next = new Promise<void>((resolve) => (changed = resolve));
      const now = await assignmentsOf(services, nodeId, dek);
      const left = end - Date.now();
      if (now.digest !== known || left <= 0 || signal.aborted) return now;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        void next.then(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    for (const w of watches) w.cancel();
  }
}

async function assignmentsOf(services: ServiceState, nodeId: string, dek: Buffer): Promise<Assignments> {
  const tasks = (await services.tasks()).map((t) => t.value).filter((t) => t.nodeId === nodeId && stateRank(t.status.state) >= stateRank('assigned'));
  const needing = tasks.filter((t) => !hasEnded(t.status.state) && t.desiredState !== 'shutdown' && t.desiredState !== 'remove');
  const secretIds = new Set(needing.flatMap((t) => (t.spec.ContainerSpec?.Secrets ?? []).map((r) => r.SecretID)));
  const configIds = new Set(needing.flatMap((t) => (t.spec.ContainerSpec?.Configs ?? []).map((r) => r.ConfigID)));
  // the networks of its tasks, and of its plain containers attached to swarm networks
  const networkIds = new Set([...needing.flatMap((t) => (t.spec.Networks ?? []).map((n) => n.Target)), ...(await attachedNetworkIds(services.cluster, nodeId))]);
  const [secrets, configs, all, cluster, specs] = await Promise.all([objectsOf(services, 'secret', secretIds, dek), objectsOf(services, 'config', configIds, dek), networks(services.cluster), services.cluster.cluster(), services.services()]);
  // every node has the routing mesh: the ingress network, its table and the node's address on it
  const ingressNetwork = all.find((n) => n.value.spec.ingress)?.value;
  const attachment = ingressNetwork === undefined ? undefined : await nodeAttachment(services.cluster, nodeId);
  const ingress = attachment?.networkId === ingressNetwork?.id ? attachment : undefined;
  if (ingressNetwork !== undefined) networkIds.add(ingressNetwork.id);
  const used = all.filter((n) => networkIds.has(n.value.id)).map((n) => networkView(n.value));
  const tables = wireTables(await tablesOf(services.cluster, networkIds));
  const session = (await services.cluster.session(nodeId))?.lease ?? '';
  const servicePorts = specs.map((s) => s.value).filter((s) => serviceNetworks(s.spec).some((n) => networkIds.has(n.Target))).map(namedPorts).filter((s) => s.ports.length > 0);
  const dataPathPort = cluster.value.dataPathPort;
  const ingressPorts = ingressNetwork === undefined ? [] : specs.flatMap((s) => s.value.endpoint.ports.filter((p) => p.PublishMode === 'ingress').map((p) => ({ protocol: p.Protocol, publishedPort: p.PublishedPort ?? 0, targetPort: p.TargetPort ?? 0 })));
  // the node's own reports change a task's status: only what the node must act on counts
  const digest = createHash('sha256')
    .update(JSON.stringify([tasks.map(({ status: _s, updatedAt: _u, runningAt: _r, ...rest }) => rest), secrets, configs, used, tables, session, dataPathPort, servicePorts, ingress, ingressPorts]))
    .digest('hex');
  return { digest, tasks, secrets, configs, networks: used, tables, session, dataPathPort, servicePorts, ingressPorts, ...(ingress !== undefined ? { ingress } : {}) };
}

/** A service's ports that have a name (EndpointSpec.Ports), which DNS answers SRV queries for. */
function namedPorts(service: ServiceRecord): ServicePorts {
  const ports = (service.spec.EndpointSpec?.Ports ?? []).filter((p) => (p.Name ?? '') !== '');
  return { serviceId: service.id, ports: ports.map((p) => ({ name: p.Name!, protocol: p.Protocol, targetPort: p.TargetPort ?? 0 })) };
}

async function objectsOf(services: ServiceState, kind: ObjectKind, ids: ReadonlySet<string>, dek: Buffer): Promise<AssignedObject[]> {
  const out: AssignedObject[] = [];
  for (const id of [...ids].sort()) {
    const kv = await services.cluster.call(() => services.cluster.store.get(prefixOf(kind) + id));
    if (kv === undefined) continue;
    const o = decode<SecretRecord>(kv.value);
    out.push({ id, name: o.spec.name, data: kind === 'secret' ? decryptSecret(dek, o.data) : o.data, ...(o.spec.templating !== undefined ? { templating: { name: o.spec.templating.name } } : {}) });
  }
  return out;
}

function wireTables(snapshot: TablesSnapshot): Assignments['tables'] {
  const out: Assignments['tables'] = {};
  for (const [networkId, tables] of Object.entries(snapshot)) {
    out[networkId] = {};
    for (const [table, entries] of Object.entries(tables) as Array<[TableName, TableEntry[]]>) out[networkId][table] = entries.map((e) => ({ key: e.key, value: Buffer.from(e.value).toString('base64'), owner: e.owner ?? '' }));
  }
  return out;
}

/** A node's whole set of table entries, published on its session's lease (table-store.ts). */
export async function applyTableEntries(services: ServiceState, nodeId: string, req: TableEntriesRequest): Promise<void> {
  const entries = (Array.isArray(req?.entries) ? req.entries : []).filter((e) => (e.table === ENDPOINT_TABLE || e.table === PEER_TABLE) && typeof e.networkId === 'string' && typeof e.key === 'string' && typeof e.value === 'string' && !e.networkId.includes('/') && !e.key.includes('/'));
  await publishNodeEntries(services.cluster, nodeId, entries.map((e) => ({ networkId: e.networkId, table: e.table, key: e.key, value: Buffer.from(e.value, 'base64') })));
}

/** Takes a node's reports on its own tasks; a report that would move a task back is dropped. */
export async function applyTaskStatus(services: ServiceState, nodeId: string, reports: readonly TaskStatusReport[]): Promise<void> {
  for (const report of reports) {
    for (let attempt = 0; attempt < REPORT_ATTEMPTS; attempt++) {
      const found = await services.task(report.taskId);
      if (found === undefined) break;
      const t = found.value;
      if (t.nodeId !== nodeId) throw new EngineError('forbidden', `task ${t.id} is not assigned to node ${nodeId}`);
      if (!isLaterState(report.status.state, t.status.state)) break;
      const next: TaskRecord = { ...t, updatedAt: formatRfc3339Nano(nowNanos()), status: report.status, ...(report.status.state === 'running' ? { runningAt: report.status.timestamp } : {}) };
      if (await services.writeTasks([{ put: next, version: found.version }])) break;
    }
  }
}
