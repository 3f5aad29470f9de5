// POST /containers/{id}/exec, GET /exec/{id}/json and POST /exec/{id}/resize.
import { atoi } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ExecBackend } from './backend.js';
import { toExecInspect } from './to-api.js';

export function containerExec(backend: ExecBackend): Handler {
  return async (ctx) => {
    const body = await ctx.readJson();
    ctx.json({ Id: backend.create(ctx.params.id, body) }, 201);
  };
}

export function execInspect(backend: ExecBackend): Handler {
  return (ctx) => {
    ctx.json(toExecInspect(backend.inspect(ctx.params.id)));
  };
}

export function execResize(backend: ExecBackend): Handler {
  return async (ctx) => {
    const height = atoi(ctx.query.get('h') ?? '');
    const width = atoi(ctx.query.get('w') ?? '');
    await backend.resize(ctx.params.id, height, width);
    ctx.res.writeHead(200, { 'Content-Length': 0 }).end();
  };
}
