// POST /images/load. dockerd starts its stream at once and reports failures in-band; berth prints
// no progress, so its head waits for the "Loaded image" lines written when the load is done, and a
// bad archive still gets an error status with {"message"}. The CLI shows both.
import type { Handler } from '../../router.js';
import { runProgressSession } from '../../streams/run-progress-session.js';
import type { ImageBackend } from './backend.js';

export function imageLoad(backend: ImageBackend): Handler {
  return (ctx) => runProgressSession(ctx, backend.load(), { headAtOnce: false, input: ctx.req });
}
