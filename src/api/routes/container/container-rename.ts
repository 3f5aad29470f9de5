// POST /containers/{id}/rename.
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';

export function containerRename(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.rename(ctx.params.id, ctx.query.get('name') ?? '');
    ctx.res.writeHead(204).end();
  };
}
