// POST /containers/create: 201 {Id, Warnings}. The body is validated and normalized by the
// backend (normalize-create); the name is checked here, before anything is made.
import type { Handler } from '../../router.js';
import type { ContainerBackend } from './backend.js';

export function containerCreate(backend: ContainerBackend): Handler {
  return async (ctx) => {
    const body = await ctx.readJson();
    const name = ctx.query.get('name') ?? undefined;
    const { id, warnings } = await backend.create({ body, name: name === '' ? undefined : name, api: ctx.api });
    ctx.json({ Id: id, Warnings: warnings }, 201);
  };
}
