// GET /containers/{id}/stats: with stream (the default) one StatsJSON line a second until the
// client leaves; without, one object (Content-Type application/json, as dockerd sets it only then).
import { invalidParameter } from '../../../errors.js';
import { queryBool } from '../../query.js';
import type { Handler } from '../../router.js';
import type { ContainerControlBackend } from './control-backend.js';
import { encodeStatsJson } from './stats-to-api.js';

export function containerStats(backend: ContainerControlBackend): Handler {
  return async (ctx) => {
    // dockerd's BoolValueOrDefault: absent is true, present is read as a bool
    const stream = !ctx.query.has('stream') || queryBool(ctx.query, 'stream');
    const oneShot = ctx.api.has('statsOneShot') && queryBool(ctx.query, 'one-shot');
    // asked: a missing container's 404 comes first
    const target = backend.statsTarget(ctx.params.id);
    if (stream && oneShot) throw invalidParameter('cannot have stream=true and one-shot=true');
    const frames = backend.statsFrames(target.id, { stream, oneShot, signal: ctx.signal });
    if (!stream) {
      for await (const frame of frames) {
        const text = encodeStatsJson(frame, target) + '\n';
        ctx.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
      }
      return;
    }
    const out = ctx.ndjson();
    try {
      for await (const frame of frames) await out.writeLine(encodeStatsJson(frame, target));
    } finally {
      out.end();
    }
  };
}
