// The filters of GET /networks (dockerd's daemon/network/filter.go) and of POST /networks/prune
// (daemon/prune.go), with dockerd's errors. `name` and `id` are regular expressions searched in
// the value, as Go's filters.Args.Match does; one that does not compile matches nothing.
import { EngineError, invalidParameter } from '../errors.js';
import type { FilterArgs } from '../lib/filters.js';
import { untilMillis } from '../lib/prune-filters.js';
import { isPredefined, type NetworkRecord } from './network-record.js';

export interface NetworkUse {
  network: NetworkRecord;
  /** how many endpoints it has */
  endpointCount: number;
}

const LIST_FILTERS = new Set(['dangling', 'driver', 'id', 'label', 'name', 'scope', 'type']);
const PRUNE_FILTERS = new Set(['label', 'label!', 'until']);

/**
 * The networks the list filters keep. `dangling` means what the spec says: true keeps the custom
 * networks without endpoints, false the predefined ones and those with endpoints. (dockerd 20.10
 * tests its list before filling in Containers, so it calls every custom network dangling.)
 */
export function selectNetworks<T extends NetworkUse>(all: readonly T[], filters: FilterArgs): T[] {
  filters.validate(LIST_FILTERS);
  let selected = all.filter(({ network: n }) => {
    if (!filters.exactMatch('driver', n.driver)) return false;
    if (filters.has('name') && !filters.regexpMatch('name', n.name)) return false;
    if (filters.has('id') && !filters.regexpMatch('id', n.id)) return false;
    if (filters.has('label') && !filters.matchKeyValues('label', n.labels ?? {})) return false;
    return filters.exactMatch('scope', n.scope);
  });
  const dangling = filters.values('dangling');
  if (dangling.length > 1) throw invalidParameter('got more than one value for filter key "dangling"');
  if (dangling.length === 1) {
    const value = dangling[0];
    if (!['0', 'false', '1', 'true'].includes(value)) {
      throw invalidParameter('invalid value for filter \'dangling\', must be "true" (or "1"), or "false" (or "0")');
    }
    const danglingOnly = value === '1' || value === 'true';
    selected = selected.filter((u) => (danglingOnly ? !isPredefined(u.network) && u.endpointCount === 0 : isPredefined(u.network) || u.endpointCount > 0));
  }
  if (filters.has('type')) {
    // each value adds its networks, in the order given (a network can come twice, as with dockerd)
    selected = filters.values('type').flatMap((type) => {
      if (type !== 'builtin' && type !== 'custom') throw new EngineError('system', `invalid filter: 'type'='${type}'`);
      return selected.filter((u) => isPredefined(u.network) === (type === 'builtin'));
    });
  }
  return selected;
}

/** Which networks a prune may delete: custom ones without endpoints, made before `until`, with the labels asked for and not all the `label!` ones. */
export function pruneSelection(filters: FilterArgs): (use: NetworkUse) => boolean {
  filters.validate(PRUNE_FILTERS);
  const until = filters.values('until');
  if (until.length > 1) throw new EngineError('system', 'more than one until filter specified');
  const untilMs = until.length === 1 ? untilMillis(until[0]) : undefined;
  return ({ network, endpointCount }) => {
    if (isPredefined(network) || endpointCount > 0) return false;
    if (untilMs !== undefined && Date.parse(network.created) > untilMs) return false;
    if (!filters.matchKeyValues('label', network.labels ?? {})) return false;
    // dockerd spares a network only when every label! term matches it (MatchKVList)
    return !(filters.has('label!') && filters.matchKeyValues('label!', network.labels ?? {}));
  };
}
