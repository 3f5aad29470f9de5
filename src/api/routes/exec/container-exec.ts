// POST /containers/{id}/exec: 201 {Id}.
import type { Handler } from '../../router.js';
import type { ExecBackend } from './backend.js';

export function containerExec(backend: ExecBackend): Handler {
  return async (ctx) => {
    const body = await ctx.readJson();
    ctx.json({ Id: backend.create(ctx.params.id, body) }, 201);
  };
}
