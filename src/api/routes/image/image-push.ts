// POST /images/{name}/push: the image's tag (or every tag of the repository) pushed with the
// credentials of X-Registry-Auth, or of a JSON body as old clients sent them (dockerd still reads
// one; with neither, its 400). The head goes out at once and failures go in-band, as dockerd's.
import { invalidParameter } from '../../../errors.js';
import type { Handler } from '../../router.js';
import { runProgressSession } from '../../streams/run-progress-session.js';
import type { ImageBackend } from './backend.js';
import { headerOf } from './image-create.js';

export function imagePush(backend: ImageBackend): Handler {
  return async (ctx) => {
    let registryAuth = headerOf(ctx.req.headers['x-registry-auth']);
    if (!registryAuth) {
      const body = await ctx.readJson().catch((err: Error) => {
        throw invalidParameter(`Bad parameters and missing X-Registry-Auth: ${err.message}`);
      });
      if (body === undefined) throw invalidParameter('Bad parameters and missing X-Registry-Auth: EOF');
      // the body's credentials as the header would carry them
      registryAuth = Buffer.from(JSON.stringify(body)).toString('base64url');
    }
    const session = backend.push({ name: ctx.params.name, tag: ctx.query.get('tag') ?? '', registryAuth });
    return runProgressSession(ctx, session, { headAtOnce: true });
  };
}
