// The filters of GET /volumes and POST /volumes/prune, as dockerd 20.10 reads them
// (volume/service/by.go, daemon/prune.go), with its errors ("Invalid filter", capitalized).
// `name` is Go's Args.Match, a regular expression; `driver` is exact.
import { invalidParameter } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { negativeLabelMatch } from '../lib/prune-filters.js';
import type { VolumeRecord } from './volume-record.js';

const LIST_FILTERS = new Set(['dangling', 'driver', 'label', 'name']);
const PRUNE_FILTERS = new Set(['label', 'label!']);

export function selectVolumes(all: readonly VolumeRecord[], filters: FilterArgs, users: (name: string) => string[]): VolumeRecord[] {
  validate(filters, LIST_FILTERS);
  const dangling = danglingFilter(filters);
  return all.filter((v) => {
    if (filters.has('name') && !filters.regexpMatch('name', v.name)) return false;
    if (!filters.exactMatch('driver', v.driver)) return false;
    if (filters.has('label') && !filters.matchKeyValues('label', v.labels ?? {})) return false;
    return dangling === undefined || (users(v.name).length === 0) === dangling;
  });
}

/** Of the candidates, those no container references that the label filters keep. */
export function selectPrunable(candidates: readonly VolumeRecord[], filters: FilterArgs, users: (name: string) => string[]): VolumeRecord[] {
  validate(filters, PRUNE_FILTERS);
  return candidates.filter((v) => {
    if (users(v.name).length > 0) return false;
    if (filters.has('label') && !filters.matchKeyValues('label', v.labels ?? {})) return false;
    return !(filters.has('label!') && negativeLabelMatch(filters.values('label!'), v.labels ?? {}));
  });
}

function validate(filters: FilterArgs, accepted: ReadonlySet<string>): void {
  for (const key of filters.keys()) if (!accepted.has(key)) throw invalidParameter(`Invalid filter '${key}'`);
}

/** true keeps the volumes nothing references; with both values given, true wins (as dockerd). */
function danglingFilter(filters: FilterArgs): boolean | undefined {
  if (!filters.has('dangling')) return undefined;
  const values = filters.values('dangling');
  for (const v of values) if (!['0', 'false', '1', 'true'].includes(v)) throw invalidParameter(`Invalid filter 'dangling=[${v}]'`);
  return values.includes('1') || values.includes('true');
}
