// DELETE /networks/{id}: 204; 403 for a predefined network or one with endpoints, as dockerd.
import type { Handler } from '../../router.js';
import type { NetworkBackend } from './backend.js';

export function networkDelete(backend: NetworkBackend): Handler {
  return async (ctx) => {
    await backend.remove(ctx.params.id);
    ctx.res.writeHead(204).end();
  };
}
