// GET /containers/{id}/stats: with stream (the default) one StatsJSON line a second until the
// client leaves; without, one object (Content-Type application/json, as dockerd sets it only then).
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerControlBackend } from './control-backend.js';
import { encodeStatsJson } from './stats-to-api.js';

export function containerStats(backend: ContainerControlBackend): Handler {
  return async (ctx) => {
    // dockerd's BoolValueOrDefault: absent is true, present is read as a bool
    const stream = !ctx.query.has('stream') || queryBool(ctx.query, 'stream');
    const oneShot = ctx.api.has('statsOneShot') && queryBool(ctx.query, 'one-shot');
    const session = backend.stats(ctx.params.id, { stream, oneShot });
    const encode = (frame: Parameters<typeof encodeStatsJson>[0]) => encodeStatsJson(frame, session.container);
    if (!stream) {
      await session.run({
        out: {
          async write(frame) {
            const text = encode(frame) + '\n';
            ctx.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
          },
        },
        signal: ctx.signal,
      });
      return;
    }
    const out = ctx.ndjson();
    try {
      await session.run({ out: { write: (frame) => out.writeLine(encode(frame)) }, signal: ctx.signal });
    } finally {
      out.end();
    }
  };
}
