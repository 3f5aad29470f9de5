// GET /containers/{id}/top: {Processes, Titles} from the host's ps (ps_args, "-ef" by default).
import type { Handler } from '../../router.js';
import type { ContainerControlBackend } from './control-backend.js';

export function containerTop(backend: ContainerControlBackend): Handler {
  return async (ctx) => {
    const { Titles, Processes } = await backend.top(ctx.params.id, ctx.query.get('ps_args') ?? '');
    ctx.json({ Processes, Titles });
  };
}
