// Runs a progress session (load, import; next pull, push, build) against a ProgressWriter. Until
// the head is out a failure propagates, to become a status code; after it the failure is written
// in-band, and one that is no EngineError (a bug) is thrown on as well, for the server to log.
import type { Readable } from 'node:stream';
import { EngineError } from '../../errors.js';
import type { ProgressSink, StreamSession } from '../../lib/stream-session.js';
import type { RequestContext } from '../context.js';
import { ProgressWriter } from './progress-writer.js';

export async function runProgressSession(
  ctx: RequestContext,
  session: StreamSession<ProgressSink>,
  opts: { headAtOnce: boolean; input?: Readable },
): Promise<void> {
  const out = new ProgressWriter(ctx.res, ctx.signal, { headAtOnce: opts.headAtOnce });
  try {
    await session.run({ out, input: opts.input, signal: ctx.signal });
  } catch (err) {
    if (!out.headSent || ctx.signal.aborted) throw err;
    const code = err instanceof EngineError ? err.progressCode : undefined;
    await out.error(err instanceof Error ? err.message : String(err), code);
    out.end();
    // thrown before the response is finished, or the server would take it for a client gone and not log it
    if (!(err instanceof EngineError)) throw err;
    return;
  }
  out.end();
}
