// GET /events: the engine's events, past and live, as JSON lines. Bad parameters are refused
// before the first byte.
import { FilterArgs } from '../../../lib/filters.js';
import type { Handler } from '../../router.js';
import type { SystemBackend } from './backend.js';
import { encodeEventMessage, toEventMessage } from './to-api.js';

export function systemEvents(backend: SystemBackend): Handler {
  return async (ctx) => {
    const session = backend.events({
      since: ctx.query.get('since') ?? undefined,
      until: ctx.query.get('until') ?? undefined,
      filters: FilterArgs.fromJson(ctx.query.get('filters')),
    });
    const out = ctx.ndjson();
    try {
      await session.run({ out: { write: (ev) => out.writeLine(encodeEventMessage(toEventMessage(ev))) }, signal: ctx.signal });
    } finally {
      out.end();
    }
  };
}
