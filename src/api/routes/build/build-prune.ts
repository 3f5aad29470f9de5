// POST /build/prune: the classic builder keeps its cache as images (pruned with them), so, as
// with dockerd after classic builds, nothing is here to prune; the parameters are checked as dockerd checks them.
import { FilterArgs } from '../../../lib/filters.js';
import { atoi, queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { BuildBackend } from './backend.js';

export function buildPrune(backend: BuildBackend): Handler {
  return (ctx) => {
    const keep = ctx.query.get('keep-storage');
    const result = backend.prune({ all: queryBool(ctx.query, 'all'), keepStorageBytes: keep ? atoi(keep) : 0, filters: FilterArgs.fromJson(ctx.query.get('filters')) });
    ctx.json({ CachesDeleted: result.cachesDeleted, SpaceReclaimed: result.reclaimedBytes });
  };
}
