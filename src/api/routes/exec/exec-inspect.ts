// GET /exec/{id}/json.
import type { Handler } from '../../router.js';
import type { ExecBackend } from './backend.js';
import { toExecInspect } from './to-api.js';

export function execInspect(backend: ExecBackend): Handler {
  return (ctx) => {
    ctx.json(toExecInspect(backend.inspect(ctx.params.id)));
  };
}
