import type { Handler } from '../../router.js';
import type { SystemBackend } from './backend.js';
import { toSystemVersion } from './to-api.js';

export function systemVersion(backend: SystemBackend): Handler {
  return async (ctx) => ctx.json(toSystemVersion(await backend.version()));
}
