// POST /images/{name}/tag: 201 with no body, as dockerd.
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';

export function imageTag(backend: ImageBackend): Handler {
  return async (ctx) => {
    await backend.tag(ctx.params.name, ctx.query.get('repo') ?? '', ctx.query.get('tag') ?? '');
    ctx.res.writeHead(201).end();
  };
}
