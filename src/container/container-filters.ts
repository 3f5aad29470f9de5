// The containers' filters as dockerd reads them: GET /containers/json's selection (daemon/list.go:
// the filters, `all` — active ones only without it, unless a status filter or a limit asks for
// more — newest first), and POST /containers/prune's.
import { invalidParameter } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { negativeLabelMatch, untilMillis } from '../lib/prune-filters.js';
import type { ContainerRecord, ContainerStatus } from './container-record.js';
import { isActive } from './container-state.js';

export const LIST_FILTERS = new Set(['ancestor', 'before', 'expose', 'exited', 'health', 'id', 'label', 'name', 'publish', 'since', 'volume', 'network', 'is-task', 'status']);

const STATUSES: readonly ContainerStatus[] = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'];
const HEALTH = ['starting', 'healthy', 'unhealthy', 'none'];

export interface ListQuery {
  all: boolean;
  limit: number;
  filters: FilterArgs;
  /** the container a `before`/`since` value names (throws NoSuchContainer) */
  resolve: (ref: string) => ContainerRecord;
  /** the image IDs an `ancestor` value names (none when it names no image) */
  imageIds: (ref: string) => string[];
}

export function selectContainers(records: ContainerRecord[], q: ListQuery): ContainerRecord[] {
  const f = q.filters;
  for (const key of f.keys()) if (!LIST_FILTERS.has(key)) throw invalidParameter(`Invalid filter '${key}'`);
  let all = q.all;
  for (const v of f.values('status')) {
    if (!STATUSES.includes(v as ContainerStatus)) throw invalidParameter(`Invalid filter 'status=${v}'`);
    all = true;
  }
  for (const v of f.values('health')) if (!HEALTH.includes(v)) throw invalidParameter(`Unrecognised filter value for health: ${v}`);
  const exited = f.values('exited').map((v) => {
    if (!/^-?\d+$/.test(v)) throw invalidParameter(`strconv.Atoi: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(v);
  });
  for (const v of f.values('is-task')) if (v !== 'true' && v !== 'false') throw invalidParameter(`Invalid filter 'is-task=${v}'`);
  const before = f.values('before').map((r) => q.resolve(r).created);
  const since = f.values('since').map((r) => q.resolve(r).created);
  const ancestors = new Set(f.values('ancestor').flatMap((r) => q.imageIds(r)));
  const ancestorNames = f.values('ancestor');

  const sorted = [...records].sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
  const out: ContainerRecord[] = [];
  for (const r of sorted) {
    const s = r.state.status;
    if (!isActive(s) && !all && q.limit <= 0) continue;
    if (!f.fuzzyMatch('id', r.id)) continue;
    if (f.has('name') && !f.values('name').some((n) => new RegExp(n).test(r.name) || new RegExp(n).test(r.name.slice(1)))) continue;
    if (!f.matchKeyValues('label', r.config.Labels ?? {})) continue;
    if (!f.exactMatch('status', s)) continue;
    if (exited.length > 0 && !(s === 'exited' && r.state.hasBeenStarted && exited.includes(r.state.exitCode))) continue;
    if (f.has('health') && !f.exactMatch('health', r.state.health?.Status ?? 'none')) continue;
    if (before.some((t) => r.created >= t)) continue;
    if (since.some((t) => r.created <= t)) continue;
    if (ancestorNames.length > 0 && !ancestors.has(r.image) && !ancestorNames.includes(r.config.Image ?? '')) continue;
    if (f.has('is-task') && !f.values('is-task').includes('false')) continue;
    if (f.has('volume') && !r.mountPoints.some((m) => f.values('volume').some((v) => v === m.Name || v === m.Destination || v === m.Source))) continue;
    if (f.has('network') && !f.values('network').includes(networkOf(r))) continue;
    if (f.has('expose') && !portsMatch(f.values('expose'), Object.keys(r.config.ExposedPorts ?? {}))) continue;
    if (f.has('publish') && !portsMatch(f.values('publish'), publishedPorts(r))) continue;
    out.push(r);
    if (q.limit > 0 && out.length >= q.limit) break;
  }
  return out;
}

/** The containers a prune may remove, by its filters (until, label, label!); 400 for any other. */
export function pruneFilter(filters: FilterArgs): (r: ContainerRecord) => boolean {
  filters.validate(new Set(['until', 'label', 'label!']));
  const until = filters.values('until').map(untilMillis);
  const notLabels = filters.values('label!');
  return (r) => {
    const labels = r.config.Labels ?? {};
    return filters.matchKeyValues('label', labels) && !negativeLabelMatch(notLabels, labels) && until.every((ms) => Date.parse(r.created) < ms);
  };
}

function networkOf(r: ContainerRecord): string {
  const mode = r.hostConfig.NetworkMode ?? 'default';
  return mode === 'default' ? 'bridge' : mode;
}

function publishedPorts(r: ContainerRecord): string[] {
  const out: string[] = [];
  for (const [port, bindings] of Object.entries(r.hostConfig.PortBindings ?? {})) {
    const proto = port.includes('/') ? port.slice(port.indexOf('/')) : '/tcp';
    for (const b of bindings ?? []) if (b.HostPort) out.push(`${b.HostPort}${proto}`);
  }
  return out;
}

/** `80`, `80/tcp` or a range `8000-8080/tcp` against ports as "80/tcp". */
function portsMatch(wanted: string[], ports: string[]): boolean {
  return wanted.some((w) => {
    const [range, proto = 'tcp'] = w.split('/');
    const [lo, hi = lo] = range.split('-').map(Number);
    if (!Number.isInteger(lo) || !Number.isInteger(hi)) throw invalidParameter(`Invalid filter: invalid port ${w}`);
    return ports.some((p) => {
      const [n, pp = 'tcp'] = p.split('/');
      return pp === proto && Number(n) >= lo && Number(n) <= hi;
    });
  });
}
