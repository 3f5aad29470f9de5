// The nodes' calls on a manager: list with dockerd's filters, inspect by ID, name or ID prefix,
// update of the spec (labels, availability, role) at the version read, and removal, with
// swarmkit's refusals in its words.
import { EngineError, invalidParameter } from '../../errors.js';
import type { FilterArgs } from '../../lib/filters.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import type { NodeRole } from '../ca/swarm-ca.js';
import type { ClusterState, Versioned } from '../cluster/cluster-state.js';
import type { Availability, NodeRecord } from '../cluster/records.js';

export interface NodeView {
  node: Versioned<NodeRecord>;
  /** for managers: whether it leads, and whether its session is up */
  manager?: { leader: boolean; reachability: 'reachable' | 'unreachable' };
}

const FILTERS = new Set(['id', 'label', 'membership', 'name', 'node.label', 'role']);

function failedPrecondition(message: string): EngineError {
  return new EngineError('invalidParameter', `rpc error: code = FailedPrecondition desc = ${message}`);
}

export async function listNodes(state: ClusterState, filters: FilterArgs): Promise<NodeView[]> {
  filters.validate(FILTERS);
  const roles = enumFilter(filters, 'role', ['manager', 'worker']);
  const memberships = enumFilter(filters, 'membership', ['accepted', 'pending']);
  const views = await viewsOf(state, await state.nodes());
  return views.filter(({ node: { value: n } }) => {
    if (filters.has('id') && !filters.values('id').some((p) => n.id.startsWith(p))) return false;
    // swarmkit names nodes by their hostname (its name index), whatever the spec's Name
    if (filters.has('name') && !filters.values('name').some((p) => n.description.hostname.startsWith(p))) return false;
    if (roles.length > 0 && !roles.includes(n.role)) return false;
    if (memberships.length > 0 && !memberships.includes('accepted')) return false;
    if (!matchLabels(filters, 'label', n.description.engine.labels)) return false;
    if (!matchLabels(filters, 'node.label', n.spec.labels)) return false;
    return true;
  });
}

/**
 * swarmkit's label filter (filterMatchLabels over dockerd's ConvertKVStringsToMap): every `k` or
 * `k=` asks for the label, every `k=v` for that value too. (Not FilterArgs.matchKeyValues, dockerd's
 * MatchKVList elsewhere, for which `k=` asks for an empty value.)
 */
function matchLabels(filters: FilterArgs, key: 'label' | 'node.label', labels: Readonly<Record<string, string>>): boolean {
  return filters.values(key).every((term) => {
    const eq = term.indexOf('=');
    const k = eq < 0 ? term : term.slice(0, eq);
    const v = eq < 0 ? '' : term.slice(eq + 1);
    return Object.hasOwn(labels, k) && (v === '' || labels[k] === v);
  });
}

/**
 * The values of a filter on one of swarmkit's enums, as newListNodesFilters reads them: in any case
 * (it looks strings.ToUpper(v) up), an empty one ignored, another refused in its words.
 */
function enumFilter<T extends string>(filters: FilterArgs, key: 'role' | 'membership', names: readonly T[]): T[] {
  const found: T[] = [];
  for (const v of filters.values(key)) {
    const name = names.find((n) => n.toUpperCase() === v.toUpperCase());
    if (name !== undefined) found.push(name);
    else if (v !== '') throw invalidParameter(`Invalid ${key} filter: '${v}'`);
  }
  return found;
}

/** A node by ID, then name (its hostname), then ID prefix, as dockerd's getNode looks. */
export async function findNode(state: ClusterState, input: string): Promise<NodeView> {
  const exact = await state.node(input);
  if (exact !== undefined) return (await viewsOf(state, [exact]))[0]!;
  const all = await state.nodes();
  for (const match of [(n: NodeRecord) => n.description.hostname === input, (n: NodeRecord) => n.id.startsWith(input)]) {
    const found = all.filter((n) => match(n.value));
    if (found.length > 1) throw invalidParameter(`node ${input} is ambiguous (${found.length} matches found)`);
    if (found.length === 1) return (await viewsOf(state, found))[0]!;
  }
  throw new EngineError('notFound', `node ${input} not found`);
}

export interface NodeSpecUpdate {
  name: string;
  labels: Record<string, string>;
  role: NodeRole;
  availability: Availability;
}

export function decodeNodeSpec(body: unknown): NodeSpecUpdate {
  const w = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const roleText = typeof w.Role === 'string' ? w.Role : '';
  const availabilityText = typeof w.Availability === 'string' ? w.Availability : '';
  // NodeSpecToGRPC looks strings.ToUpper(v) up in swarmkit's enums: any case will do
  const role = (['manager', 'worker'] as const).find((r) => r.toUpperCase() === roleText.toUpperCase());
  if (role === undefined) throw invalidParameter(`invalid Role: "${roleText}"`);
  const availability = (['active', 'pause', 'drain'] as const).find((a) => a.toUpperCase() === availabilityText.toUpperCase());
  if (availability === undefined) throw invalidParameter(`invalid Availability: "${availabilityText}"`);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries((w.Labels ?? {}) as Record<string, unknown>)) if (typeof v === 'string') labels[k] = v;
  return { name: typeof w.Name === 'string' ? w.Name : '', labels, role, availability };
}

/**
 * Applies a node's new spec at the version read. A role change is only asked for here: the leader
 * demotes (role-reconciler.ts), the node promotes itself when its heartbeat tells it. A demotion
 * is refused when it would leave no manager, or managers that could not reach a quorum (those
 * with a session count as reachable, as swarmkit's raft counts its reachable members).
 */
export async function updateNode(state: ClusterState, id: string, version: number, spec: NodeSpecUpdate): Promise<void> {
  const { node } = await findNode(state, id);
  if (spec.role === 'worker' && node.value.spec.role === 'manager') {
    const others = (await state.nodes()).filter((n) => n.value.role === 'manager' && n.value.spec.role === 'manager' && n.value.id !== node.value.id);
    if (others.length === 0) throw failedPrecondition('attempting to demote the last manager of the swarm');
    const sessions = await state.sessions();
    const reachable = others.filter((n) => sessions.has(n.value.id)).length;
    if (reachable <= others.length / 2) throw failedPrecondition("can't remove member from the raft: this would result in a loss of quorum");
  }
  await state.putNode(version, { ...node.value, updatedAt: formatRfc3339Nano(nowNanos()), spec: { ...spec } });
}

export async function removeNode(state: ClusterState, id: string, force: boolean, endSession: (nodeId: string) => Promise<void>): Promise<void> {
  const { node } = await findNode(state, id);
  const n = node.value;
  if (n.role === 'manager') throw failedPrecondition(`node ${n.id} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`);
  // swarmkit refuses a ready node only: one still unknown or disconnected goes without force
  if (!force && n.status.state === 'ready') throw failedPrecondition(`node ${n.id} is not down and can't be removed`);
  await state.deleteNode(n.id, node.version);
  await endSession(n.id);
}

async function viewsOf(state: ClusterState, nodes: Array<Versioned<NodeRecord>>): Promise<NodeView[]> {
  const managers = nodes.some((n) => n.value.role === 'manager');
  const [leader, sessions] = managers ? await Promise.all([state.leader(), state.sessions()]) : [undefined, new Map()];
  return nodes.map((node) => (node.value.role !== 'manager' ? { node } : { node, manager: { leader: node.value.id === leader, reachability: sessions.has(node.value.id) ? 'reachable' : 'unreachable' } }));
}
