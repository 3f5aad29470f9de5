// POST /containers/prune: removes the containers that are not running and match the filters.
import { FilterArgs } from '../../../lib/filters.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';

export function containerPrune(backend: ContainerBackend): Handler {
  return async (ctx) => {
    const { ids, reclaimedBytes } = await backend.prune(FilterArgs.fromJson(ctx.query.get('filters')));
    ctx.json({ ContainersDeleted: ids.length > 0 ? ids : null, SpaceReclaimed: reclaimedBytes });
  };
}
