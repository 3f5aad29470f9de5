// The filters of GET /services and GET /tasks as dockerd 20.10 applies them (daemon/cluster
// services.go, tasks.go, filters.go) with swarmkit's matching (controlapi ListServices and
// ListTasks): name and id are prefixes, a label `k` or `k=` matches any value of k, a mode or a
// runtime is matched exactly (an unknown mode matches nothing, without an error). Matches come
// sorted by ID, as swarmkit's store lists them.
import { EngineError, invalidParameter } from '../../errors.js';
import type { FilterArgs } from '../../lib/filters.js';
import { TASK_STATES, isTaskDirty, modeName, taskName, type ServiceRecord, type TaskRecord } from './service-records.js';

const SERVICE_FILTERS = new Set(['id', 'label', 'mode', 'name', 'runtime']);
// _up-to-date is the CLI's, for its progress display: any value turns it on
const TASK_FILTERS = new Set(['id', 'label', 'name', 'node', 'service', 'desired-state', '_up-to-date', 'runtime']);
// the only runtime berth runs; dockerd's default runtime filter
const RUNTIME = 'container';

export function selectServices(services: readonly ServiceRecord[], filters: FilterArgs): ServiceRecord[] {
  validate(filters, SERVICE_FILTERS);
  const labels = labelTerms(filters.values('label'));
  return sortedById(
    services.filter(
      (s) =>
        hasPrefix(s.spec.Name, filters.values('name')) &&
        hasPrefix(s.id, filters.values('id')) &&
        labelsMatch(s.spec.Labels, labels) &&
        runtimeMatches(filters) &&
        (!filters.has('mode') || filters.exactMatch('mode', modeName(s.spec.Mode))),
    ),
  );
}

export interface TaskFilterLookups {
  /** the ID of the service a filter value names: dockerd's getService (ID, name, ID prefix), with its 404 and 400 */
  serviceId(input: string): Promise<string>;
  /** the ID of the node a filter value names: dockerd's getNode, likewise */
  nodeId(input: string): Promise<string>;
  /** the services by ID, for _up-to-date */
  services: ReadonlyMap<string, ServiceRecord>;
}

/** In dockerd's order of refusals: an unknown key (400), a service or node not found, a desired state unknown (500). */
export async function selectTasks(tasks: readonly TaskRecord[], filters: FilterArgs, lookups: TaskFilterLookups): Promise<TaskRecord[]> {
  validate(filters, TASK_FILTERS);
  const serviceIds: string[] = [];
  for (const input of filters.values('service')) serviceIds.push(await lookups.serviceId(input));
  const nodeIds: string[] = [];
  for (const input of filters.values('node')) nodeIds.push(await lookups.nodeId(input));
  const desiredStates = filters.values('desired-state').flatMap((value) => {
    if (value === '') return [];
    const state = TASK_STATES.find((s) => s.toUpperCase() === value.toUpperCase());
    // a plain error in dockerd, hence a 500
    if (state === undefined) throw new EngineError('system', `Invalid desired-state filter: '${value}'`);
    return [state];
  });
  const labels = labelTerms(filters.values('label'));
  return sortedById(
    tasks.filter(
      (t) =>
        hasPrefix(taskName(t), filters.values('name')) &&
        hasPrefix(t.id, filters.values('id')) &&
        labelsMatch(t.serviceAnnotations.labels, labels) &&
        (serviceIds.length === 0 || serviceIds.includes(t.serviceId)) &&
        (nodeIds.length === 0 || nodeIds.includes(t.nodeId)) &&
        runtimeMatches(filters) &&
        (desiredStates.length === 0 || desiredStates.some((s) => s === t.desiredState)) &&
        (!filters.has('_up-to-date') || isUpToDate(t, lookups.services.get(t.serviceId))),
    ),
  );
}

/** The task was made from the service's current spec (the updater's notion of an outdated task). */
function isUpToDate(task: TaskRecord, service: ServiceRecord | undefined): boolean {
  return service !== undefined && !isTaskDirty(task, service);
}

/** dockerd's filters.Validate, with its capital I. */
function validate(filters: FilterArgs, accepted: ReadonlySet<string>): void {
  for (const key of filters.keys()) if (!accepted.has(key)) throw invalidParameter(`Invalid filter '${key}'`);
}

function runtimeMatches(filters: FilterArgs): boolean {
  const runtimes = filters.values('runtime');
  return runtimes.length === 0 || runtimes.includes(RUNTIME);
}

function hasPrefix(value: string, prefixes: readonly string[]): boolean {
  return prefixes.length === 0 || prefixes.some((p) => value.startsWith(p));
}

/** runconfig's ConvertKVStringsToMap: `k=v`, or `k` for any value; a later term for a key wins. */
function labelTerms(values: readonly string[]): Map<string, string> {
  const terms = new Map<string, string>();
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq < 0) terms.set(value, '');
    else terms.set(value.slice(0, eq), value.slice(eq + 1));
  }
  return terms;
}

/** swarmkit's filterMatchLabels: an empty value asks only for the key. */
function labelsMatch(labels: Readonly<Record<string, string>>, terms: ReadonlyMap<string, string>): boolean {
  for (const [key, value] of terms) {
    if (!Object.hasOwn(labels, key)) return false;
    if (value !== '' && labels[key] !== value) return false;
  }
  return true;
}

function sortedById<T extends { id: string }>(records: T[]): T[] {
  return records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
