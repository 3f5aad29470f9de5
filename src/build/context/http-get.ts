// A GET of a remote build context or an ADD source, as dockerd's remotecontext.GetWithStatusError
// does it with Go's http.Get: up to 10 redirects followed, a status of 400 or more an error quoting
// the body, its kind from the status (404 and an unknown host: not found), and a failure to connect
// in Go's words. node:http, not fetch: fetch refuses ports that Go reaches (1, 6000, 6667...).
import { request as httpRequestRaw, type IncomingMessage } from 'node:http';
import { request as httpsRequestRaw } from 'node:https';
import { EngineError, type ErrorKind } from '../../errors.js';

const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const STATUS_KINDS: Record<number, ErrorKind> = { 400: 'invalidParameter', 401: 'unauthorized', 403: 'forbidden', 404: 'notFound' };

/** The response to `method` at `url` after redirects, whatever its status. */
export async function httpRequest(method: 'GET' | 'HEAD', url: string, signal?: AbortSignal): Promise<IncomingMessage> {
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const res = await once(method, current, signal);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) return res;
    res.resume();
    if (redirects === MAX_REDIRECTS) throw new EngineError('system', `Get "${current}": stopped after ${MAX_REDIRECTS} redirects`);
    current = new URL(location, current).href;
  }
}

/** The response to a GET, its status under 400. */
export async function httpGet(url: string, signal?: AbortSignal): Promise<IncomingMessage> {
  const res = await httpRequest('GET', url, signal);
  const status = res.statusCode ?? 0;
  if (status < 400) return res;
  const message = `failed to GET ${url} with status ${status} ${res.statusMessage ?? ''}`;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  } catch {
    throw new EngineError('system', `${message}: error reading body`);
  }
  throw new EngineError(STATUS_KINDS[status] ?? 'system', `${message}: ${Buffer.concat(chunks).toString('utf8').trim()}`);
}

function once(method: string, url: string, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let req;
    try {
      req = (url.startsWith('https:') ? httpsRequestRaw : httpRequestRaw)(url, { method, signal });
    } catch (err) {
      reject(new EngineError('system', `Get "${url}": ${(err as Error).message}`));
      return;
    }
    req.once('response', resolve);
    req.once('error', (err) => reject(signal?.aborted === true ? err : connectError(url, err)));
    req.end();
  });
}

type NetError = NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string; errors?: NetError[] };

function connectError(url: string, err: NetError): EngineError {
  // several addresses tried: the first one's failure
  const cause = err.code === undefined && err.errors !== undefined ? err.errors[0] : err;
  const host = new URL(url).hostname;
  switch (cause.code) {
    case 'ECONNREFUSED':
      return new EngineError('system', `Get "${url}": dial tcp ${cause.address ?? host}:${cause.port ?? ''}: connect: connection refused`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new EngineError('notFound', `Get "${url}": dial tcp: lookup ${cause.hostname ?? host}: no such host`);
    default:
      return new EngineError('system', `Get "${url}": ${cause.message}`);
  }
}
