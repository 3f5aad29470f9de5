import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';
import { toHistory } from './to-api.js';

export function imageHistory(backend: ImageBackend): Handler {
  return (ctx) => ctx.json(toHistory(backend.history(ctx.params.name)));
}
