// GET /images/{name}/get and GET /images/get?names=...: Docker's save format, streamed.
import type { RequestContext } from '../../context.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';

export function imageGet(backend: ImageBackend): Handler {
  return (ctx) => sendArchive(ctx, backend, [ctx.params.name]);
}

export function imageGetAll(backend: ImageBackend): Handler {
  return (ctx) => sendArchive(ctx, backend, ctx.query.getAll('names'));
}

async function sendArchive(ctx: RequestContext, backend: ImageBackend, names: string[]): Promise<void> {
  const session = backend.save(names);
  ctx.res.writeHead(200, { 'Content-Type': 'application/x-tar' });
  await session.run({ out: ctx.res, signal: ctx.signal });
}
