// POST /networks/create: 201 {Id, Warning}; the body is checked by the backend as dockerd checks it.
import type { NetworkCreateResponse } from '../../types/network.js';
import type { Handler } from '../../router.js';
import type { NetworkBackend } from './backend.js';

export function networkCreate(backend: NetworkBackend): Handler {
  return async (ctx) => {
    const { id, warning } = await backend.create(await ctx.readJson());
    ctx.json({ Id: id, Warning: warning } satisfies NetworkCreateResponse, 201);
  };
}
