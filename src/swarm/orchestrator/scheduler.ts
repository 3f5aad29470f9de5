// The scheduler, as swarmkit's: each allocated task that should run gets a node that passes
// its filters (ready and active, resources left for its reservations, its constraints, its
// platform, its host-mode ports free, MaxReplicas), spread over the values of its placement
// preferences' labels, then over the nodes with the fewest of its service's tasks, then the
// fewest tasks. A global task's node is chosen already: only checked. A task no node takes stays
// `pending`, its Err saying why, in swarmkit's words ("no suitable node (…)").
import { formatRfc3339Nano } from '../../lib/timestamp.js';
import type { Versioned } from '../cluster/cluster-state.js';
import type { NodeRecord } from '../cluster/records.js';
import { hasEnded, type TaskRecord } from '../services/service-records.js';
import type { TaskWrite } from '../services/service-state.js';
import { constraintsOf, nodeMeets } from './constraints.js';
import { groupBy } from '../../lib/group-by.js';

const PENDING_MESSAGE = 'pending task scheduling';
const ASSIGNED_MESSAGE = 'scheduler assigned task to node';

/** A filter a node may fail, in swarmkit's pipeline order, with its Explain's words. */
const FILTERS = [
  { name: 'ready', explain: (n: number) => (n === 1 ? '1 node not available for new tasks' : `${n} nodes not available for new tasks`) },
  { name: 'resources', explain: (n: number) => `insufficient resources on ${n} node${n === 1 ? '' : 's'}` },
  { name: 'constraints', explain: (n: number) => `scheduling constraints not satisfied on ${n} node${n === 1 ? '' : 's'}` },
  { name: 'platform', explain: (n: number) => `unsupported platform on ${n} node${n === 1 ? '' : 's'}` },
  { name: 'ports', explain: (n: number) => `host-mode port already in use on ${n} node${n === 1 ? '' : 's'}` },
  { name: 'maxReplicas', explain: () => 'max replicas per node limit exceed' },
] as const;
type FilterName = (typeof FILTERS)[number]['name'];

/** What a node runs now, as the scheduler counts it. */
interface NodeLoad {
  node: NodeRecord;
  nanoCpus: number;
  memoryBytes: number;
  total: number;
  byService: Map<string, number>;
  hostPorts: Set<string>;
}

export function planScheduling(tasks: ReadonlyArray<Versioned<TaskRecord>>, nodes: readonly NodeRecord[], nowNs: bigint): TaskWrite[] {
  const loads = new Map(nodes.map((node) => [node.id, { node, nanoCpus: 0, memoryBytes: 0, total: 0, byService: new Map<string, number>(), hostPorts: new Set<string>() } satisfies NodeLoad]));
  for (const { value: t } of tasks) if (t.nodeId !== '' && isPlaced(t)) addLoad(loads.get(t.nodeId), t);
  const writes: TaskWrite[] = [];
  // only tasks the allocator has given their addresses
  const waiting = tasks.filter((t) => t.value.networks !== undefined && (t.value.status.state === 'new' || t.value.status.state === 'pending') && (t.value.desiredState === 'running' || t.value.desiredState === 'ready' || t.value.desiredState === 'complete'));
  waiting.sort((a, b) => a.value.createdAt.localeCompare(b.value.createdAt));
  const at = formatRfc3339Nano(nowNs);
  for (const { value: t, version } of waiting) {
    const candidates = t.nodeId !== '' ? [loads.get(t.nodeId)].filter((l): l is NodeLoad => l !== undefined) : [...loads.values()];
    const failed = new Map<FilterName, number>();
    const fit = candidates.filter((load) => {
      const why = failedFilter(load, t);
      if (why !== undefined) failed.set(why, (failed.get(why) ?? 0) + 1);
      return why === undefined;
    });
    const chosen = choose(fit, t);
    if (chosen === undefined) {
      const err = `no suitable node (${FILTERS.filter((f) => failed.has(f.name)).map((f) => f.explain(failed.get(f.name)!)).join('; ')})`;
      if (t.status.state === 'pending' && t.status.err === err) continue;
      writes.push({ put: { ...t, updatedAt: at, status: { timestamp: at, state: 'pending', message: PENDING_MESSAGE, err } }, version });
      continue;
    }
    const assigned: TaskRecord = { ...t, nodeId: chosen.node.id, updatedAt: at, status: { timestamp: at, state: 'assigned', message: ASSIGNED_MESSAGE } };
    addLoad(chosen, assigned);
    writes.push({ put: assigned, version });
  }
  return writes;
}

/**
 * A task that holds its node's resources and host ports: placed and not ended, whatever it is asked
 * to become (one shutting down holds its port until its container has stopped).
 */
function isPlaced(t: TaskRecord): boolean {
  return t.status.state !== 'new' && t.status.state !== 'pending' && !hasEnded(t.status.state);
}

function addLoad(load: NodeLoad | undefined, t: TaskRecord): void {
  if (load === undefined) return;
  const r = t.spec.Resources?.Reservations;
  load.nanoCpus += r?.NanoCPUs ?? 0;
  load.memoryBytes += r?.MemoryBytes ?? 0;
  load.total++;
  load.byService.set(t.serviceId, (load.byService.get(t.serviceId) ?? 0) + 1);
  for (const p of hostPorts(t)) load.hostPorts.add(p);
}

function hostPorts(t: TaskRecord): string[] {
  return (t.endpoint?.ports ?? []).filter((p) => p.PublishMode === 'host' && (p.PublishedPort ?? 0) !== 0).map((p) => `${p.Protocol ?? 'tcp'}/${p.PublishedPort}`);
}

function failedFilter(load: NodeLoad, t: TaskRecord): FilterName | undefined {
  const { node } = load;
  if (node.status.state !== 'ready' || node.spec.availability !== 'active') return 'ready';
  const r = t.spec.Resources?.Reservations;
  if ((r?.NanoCPUs ?? 0) > node.description.resources.nanoCpus - load.nanoCpus || (r?.MemoryBytes ?? 0) > node.description.resources.memoryBytes - load.memoryBytes) return 'resources';
  if (!nodeMeets(node, constraintsOf(t.spec.Placement?.Constraints ?? []))) return 'constraints';
  const platforms = t.spec.Placement?.Platforms ?? [];
  if (platforms.length > 0 && !platforms.some((p) => (p.OS === undefined || p.OS === '' || p.OS === node.description.platform.os) && (p.Architecture === undefined || p.Architecture === '' || sameArch(p.Architecture, node.description.platform.architecture)))) return 'platform';
  if (hostPorts(t).some((p) => load.hostPorts.has(p))) return 'ports';
  const max = t.spec.Placement?.MaxReplicas ?? 0;
  if (max > 0 && (load.byService.get(t.serviceId) ?? 0) >= max) return 'maxReplicas';
  return undefined;
}

/** Docker's and Go's names of one architecture (x86_64 and amd64, aarch64 and arm64). */
function sameArch(a: string, b: string): boolean {
  const canonical = (x: string) => ({ x86_64: 'amd64', aarch64: 'arm64' })[x] ?? x;
  return canonical(a) === canonical(b);
}

/** The spread: each preference's label splits the nodes, the group with fewest of the service's tasks wins, then the node. */
function choose(fit: NodeLoad[], t: TaskRecord): NodeLoad | undefined {
  let pool = fit;
  for (const pref of t.spec.Placement?.Preferences ?? []) {
    const descriptor = pref.Spread?.SpreadDescriptor;
    if (descriptor === undefined) continue;
    const groups = groupBy(pool, (load) => spreadValue(load.node, descriptor));
    const count = (g: NodeLoad[]) => g.reduce((sum, l) => sum + (l.byService.get(t.serviceId) ?? 0), 0);
    pool = [...groups.values()].sort((a, b) => count(a) - count(b))[0] ?? [];
  }
  return [...pool].sort((a, b) => (a.byService.get(t.serviceId) ?? 0) - (b.byService.get(t.serviceId) ?? 0) || a.total - b.total || a.node.id.localeCompare(b.node.id))[0];
}

function spreadValue(node: NodeRecord, descriptor: string): string {
  const label = (labels: Record<string, string>, name: string) => (Object.hasOwn(labels, name) ? labels[name]! : '');
  if (descriptor.startsWith('node.labels.')) return label(node.spec.labels, descriptor.slice('node.labels.'.length));
  if (descriptor.startsWith('engine.labels.')) return label(node.description.engine.labels, descriptor.slice('engine.labels.'.length));
  return '';
}
