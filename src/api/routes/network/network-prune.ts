// POST /networks/prune: the custom networks without endpoints that the filters (until, label,
// label!) select; NetworksDeleted is null when none went, as dockerd writes it.
import { FilterArgs } from '../../../lib/filters.js';
import type { NetworkPruneResponse } from '../../types/network.js';
import type { Handler } from '../../router.js';
import type { NetworkBackend } from './backend.js';

export function networkPrune(backend: NetworkBackend): Handler {
  return async (ctx) => {
    const names = await backend.prune(FilterArgs.fromJson(ctx.query.get('filters')));
    ctx.json({ NetworksDeleted: names.length > 0 ? names : null } satisfies NetworkPruneResponse);
  };
}
