// DELETE /containers/{id}: docker rm, with force, v (its anonymous volumes) and link.
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';

export function containerDelete(backend: ContainerBackend): Handler {
  return async (ctx) => {
    await backend.remove(ctx.params.id, {
      force: queryBool(ctx.query, 'force'),
      removeVolumes: queryBool(ctx.query, 'v'),
      removeLink: queryBool(ctx.query, 'link'),
    });
    ctx.res.writeHead(204).end();
  };
}
