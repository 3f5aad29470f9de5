// POST /images/create: with fromSrc, an import of a root filesystem tar from the request body
// ("-") or a URL; with fromImage, a pull, which comes with registry support.
import { invalidParameter, notImplemented } from '../../../errors.js';
import type { Handler } from '../../router.js';
import { runProgressSession } from '../../streams/run-progress-session.js';
import type { ImageBackend } from './backend.js';

export function imageCreate(backend: ImageBackend): Handler {
  return (ctx) => {
    const fromSrc = ctx.query.get('fromSrc');
    if (fromSrc === null || fromSrc === '') {
      if (ctx.query.get('fromImage')) throw notImplemented('pulling images from a registry is not supported by berth yet');
      throw invalidParameter('either fromSrc or fromImage must be given');
    }
    const session = backend.importImage({
      sourceName: fromSrc,
      repo: ctx.query.get('repo') ?? '',
      tag: ctx.query.get('tag') ?? '',
      message: ctx.query.get('message') ?? '',
      changes: ctx.query.getAll('changes'),
      platform: ctx.query.get('platform') ?? '',
    });
    // answered when done, as image-load.ts explains: a bad archive gets an error status
    return runProgressSession(ctx, session, { headAtOnce: false, input: ctx.req });
  };
}
