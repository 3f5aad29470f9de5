import type { Handler } from '../../router.js';
import type { SystemBackend } from './backend.js';
import { toSystemInfo } from './to-api.js';

export function systemInfo(backend: SystemBackend): Handler {
  return async (ctx) => ctx.json(toSystemInfo(await backend.info()));
}
