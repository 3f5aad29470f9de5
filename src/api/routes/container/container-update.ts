// POST /containers/{id}/update: 200 {Warnings} (null when there are none, as dockerd).
import type { Handler } from '../../router.js';
import type { ContainerControlBackend } from './control-backend.js';

export function containerUpdate(backend: ContainerControlBackend): Handler {
  return async (ctx) => {
    const body = await ctx.readJson();
    const { warnings } = await backend.update(ctx.params.id, body, { pidsLimit: ctx.api.has('updatePidsLimit') });
    ctx.json({ Warnings: warnings.length > 0 ? warnings : null });
  };
}
