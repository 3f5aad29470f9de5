// GET /images/json: the images the filters keep (image-filters.ts), with shared-size on request;
// intermediate images only with `all`. `digests` changes nothing: berth always lists digests.
import { FilterArgs } from '../../../lib/filters.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toImageSummary } from './to-api.js';

export function imageList(backend: ImageBackend): Handler {
  return (ctx) => {
    const images = backend.list(FilterArgs.fromJson(ctx.query.get('filters')), queryBool(ctx.query, 'all'));
    const shared = queryBool(ctx.query, 'shared-size') ? backend.usage().sharedSizeBytes : undefined;
    ctx.json(images.map((i) => toImageSummary(i, shared?.get(i.id) ?? -1)));
  };
}
