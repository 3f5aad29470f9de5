// POST /images/load: as dockerd, the stream starts at once and a failure is reported in-band
// ({"errorDetail"}), which is where docker-py looks for it (ImageLoadError); the "Loaded image"
// lines come once the load is done.
import type { Handler } from '../../router.js';
import { runProgressSession } from '../../streams/run-progress-session.js';
import type { ImageBackend } from './backend.js';

export function imageLoad(backend: ImageBackend): Handler {
  return (ctx) => runProgressSession(ctx, backend.load(), { headAtOnce: true, input: ctx.req });
}
