// POST /images/load: the stream starts at once, as dockerd's; failures after that go in-band.
import { failInBand, streamLine } from '../../streams/progress.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';

export function imageLoad(backend: ImageBackend): Handler {
  return async (ctx) => {
    const out = ctx.ndjson();
    try {
      await backend.load(ctx.req, (line) => out.writeLine(streamLine(line)), ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      await failInBand(out, err);
    } finally {
      out.end();
    }
  };
}
