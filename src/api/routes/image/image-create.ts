// POST /images/create: with fromSrc, an import of a root filesystem tar from the request body
// ("-") or a URL; with fromImage, a pull, which comes with registry support.
import { Readable } from 'node:stream';
import { invalidParameter, notImplemented } from '../../../errors.js';
import type { RequestContext } from '../../context.js';
import type { Handler } from '../../router.js';
import type { ImageBackend } from './backend.js';

export function imageCreate(backend: ImageBackend): Handler {
  return async (ctx) => {
    const fromSrc = ctx.query.get('fromSrc');
    if (fromSrc === null || fromSrc === '') {
      if (ctx.query.get('fromImage')) throw notImplemented('pulling images from a registry is not supported by berth yet');
      throw invalidParameter('either fromSrc or fromImage must be given');
    }
    const runImport = backend.prepareImport({
      sourceName: fromSrc,
      repo: ctx.query.get('repo') ?? '',
      tag: ctx.query.get('tag') ?? '',
      message: ctx.query.get('message') ?? '',
      changes: ctx.query.getAll('changes'),
      platform: ctx.query.get('platform') ?? '',
    });
    // answered when done, as image-load.ts explains: a bad archive gets an error status
    const id = await runImport(await openSource(ctx, fromSrc), ctx.signal);
    const out = ctx.ndjson();
    await out.writeLine(JSON.stringify({ status: id }));
    out.end();
  };
}

/** The request body for "-"; otherwise the body of an HTTP(S) GET of the URL. */
async function openSource(ctx: RequestContext, fromSrc: string): Promise<Readable> {
  if (fromSrc === '-') return ctx.req;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(fromSrc) ? fromSrc : `http://${fromSrc}`);
  } catch {
    throw invalidParameter(`invalid fromSrc URL: ${fromSrc}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidParameter(`fromSrc must be "-" or an http(s) URL, not ${fromSrc}`);
  const res = await fetch(url, { signal: ctx.signal });
  if (!res.ok || res.body === null) throw invalidParameter(`fetching ${url.href} answered ${res.status} ${res.statusText}`);
  return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
}
