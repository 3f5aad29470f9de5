// POST /build: the context is the request's body (or `remote`); the stream is dockerd's, and as
// with dockerd nothing is sent before the context is read and the Dockerfile parsed, so a build
// that fails before its first line is a status code and one that fails after it says so in-band.
import type { Handler } from '../../router.js';
import { runProgressSession } from '../../streams/run-progress-session.js';
import { headerOf } from '../image/image-create.js';
import type { BuildBackend } from './backend.js';

export function imageBuild(backend: BuildBackend): Handler {
  return (ctx) => {
    const session = backend.build(ctx.query, headerOf(ctx.req.headers['x-registry-config']));
    return runProgressSession(ctx, session, { headAtOnce: false, input: ctx.req });
  };
}
