// POST /images/load. dockerd starts its stream at once and reports failures in-band; berth prints
// no progress, so it answers when the load is done: 200 with the "Loaded image" lines, or an
// error status with {"message"} (what the images issue asks of bad archives). The CLI shows both.
import type { Handler } from '../../router.js';
import { streamLine } from '../../streams/progress.js';
import type { ImageBackend } from './backend.js';

export function imageLoad(backend: ImageBackend): Handler {
  return async (ctx) => {
    const lines = await backend.load(ctx.req, ctx.signal);
    const out = ctx.ndjson();
    for (const line of lines) await out.writeLine(streamLine(line));
    out.end();
  };
}
