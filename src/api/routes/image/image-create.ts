// POST /images/create: with fromImage, a pull from a registry, its credentials in X-Registry-Auth;
// with fromSrc, an import of a root filesystem tar from the request body ("-") or a URL. A pull
// sends its head with its first line ("Pulling from"), so that a missing tag or a refused login
// before it is a status code, as dockerd's; later failures go in-band.
import { invalidParameter } from '../../../errors.js';
import type { Handler } from '../../router.js';
import { runProgressSession } from '../../streams/run-progress-session.js';
import type { ImageBackend } from './backend.js';

export function imageCreate(backend: ImageBackend): Handler {
  return (ctx) => {
    const fromSrc = ctx.query.get('fromSrc');
    const fromImage = ctx.query.get('fromImage');
    if (fromSrc === null || fromSrc === '') {
      if (!fromImage) throw invalidParameter('either fromSrc or fromImage must be given');
      const session = backend.pull({ fromImage, tag: ctx.query.get('tag') ?? '', platform: ctx.query.get('platform') ?? '', registryAuth: headerOf(ctx.req.headers['x-registry-auth']) });
      return runProgressSession(ctx, session, { headAtOnce: false });
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

export function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
