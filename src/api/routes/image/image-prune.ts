// POST /images/prune: dangling images by default; the filters are the image area's (image-filters.ts).
import { FilterArgs } from '../../../lib/filters.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toDeleteItems } from './to-api.js';

export function imagePrune(backend: ImageBackend): Handler {
  return async (ctx) => {
    const { items, reclaimedBytes } = await backend.prune(FilterArgs.fromJson(ctx.query.get('filters')));
    ctx.json({ ImagesDeleted: items.length > 0 ? toDeleteItems(items) : null, SpaceReclaimed: reclaimedBytes });
  };
}
