// POST /exec/{id}/resize: 200 with no body.
import { terminalSize } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ExecBackend } from './backend.js';

export function execResize(backend: ExecBackend): Handler {
  return async (ctx) => {
    const { height, width } = terminalSize(ctx.query);
    await backend.resize(ctx.params.id, height, width);
    ctx.res.writeHead(200, { 'Content-Length': 0 }).end();
  };
}
