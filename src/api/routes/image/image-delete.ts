import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toDeleteItems } from './to-api.js';

export function imageDelete(backend: ImageBackend): Handler {
  return async (ctx) => {
    const items = await backend.remove(ctx.params.name, { force: queryBool(ctx.query, 'force'), prune: !queryBool(ctx.query, 'noprune') });
    ctx.json(toDeleteItems(items));
  };
}
