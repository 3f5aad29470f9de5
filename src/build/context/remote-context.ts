// A build context at a URL, fetched as dockerd's remotecontext.downloadRemote: what the server says
// it is (or, when it says nothing or application/octet-stream, what its first 100 bytes look like)
// must be an archive type or text/plain; text is a Dockerfile alone, anything else the context's tar.
import { Transform, type Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { EngineError } from '../../errors.js';
import { readHead } from '../../lib/stream-head.js';
import { detectContentType } from './content-sniff.js';
import { httpGet } from './http-get.js';
import { wrapError } from './wrap-error.js';

/** how much of the body tells its type */
const MAX_PREAMBLE_BYTES = 100;
const ACCEPTABLE_MIME = /(?:application\/(?:(?:x-)?tar|octet-stream|((?:x-)?(?:gzip|bzip2?|xz)))|(?:text\/plain))/;

export type RemoteContext = { kind: 'dockerfile'; text: string } | { kind: 'archive'; body: Readable };

/** `onProgress` sees the bytes read so far and the length the server announced (0 when it did not). */
export async function downloadRemoteContext(url: string, opts: { signal?: AbortSignal; onProgress?: (currentBytes: number, totalBytes: number) => void }): Promise<RemoteContext> {
  let res: IncomingMessage;
  try {
    res = await httpGet(url, opts.signal);
  } catch (err) {
    if (opts.signal?.aborted === true) throw err;
    throw wrapError(`error downloading remote context ${url}`, err);
  }
  const contentType = res.headers['content-type'] ?? '';
  const contentLength = Number(res.headers['content-length'] ?? 0);
  const body: Readable = res;
  const counted = opts.onProgress === undefined ? body : body.pipe(progress(opts.onProgress, contentLength > 0 ? contentLength : 0));
  if (counted !== body) body.on('error', (err) => counted.destroy(err));
  const preambleBytes = contentLength <= 0 || contentLength > MAX_PREAMBLE_BYTES ? MAX_PREAMBLE_BYTES : contentLength;
  const { head, stream } = await readHead(counted, preambleBytes);
  const fail = (reason: string) => {
    stream.destroy();
    return new EngineError('system', `error detecting content type for remote ${url}: ${reason}`);
  };
  if (head.length === 0) throw fail('empty response');
  // some servers call a file without an extension (a Dockerfile) octet-stream: its bytes tell
  const sniffed = contentType === '' || contentType === 'application/octet-stream' ? detectContentType(head.subarray(0, preambleBytes)) : contentType;
  const acceptable = ACCEPTABLE_MIME.exec(sniffed)?.[0];
  if (acceptable === undefined) throw fail(`unsupported Content-Type ${JSON.stringify(contentType)}`);
  if (acceptable !== 'text/plain') return { kind: 'archive', body: stream };
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return { kind: 'dockerfile', text: Buffer.concat(chunks).toString('utf8') };
}

function progress(report: (currentBytes: number, totalBytes: number) => void, totalBytes: number): Transform {
  let currentBytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      currentBytes += chunk.length;
      report(currentBytes, totalBytes);
      callback(null, chunk);
    },
  });
}
