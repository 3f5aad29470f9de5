// The body of a request whose connection a route takes (attach, exec start). Node hands such a
// request over with its head parsed and its body unread on the socket (see hijack.ts), so the body
// is read here by the request's framing, Content-Length or chunked, and the bytes after it (the
// client's stdin) are left on the socket. Node's parser has already refused heads whose framing is
// invalid (both headers, a Transfer-Encoding that does not end in chunked).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { invalidParameter } from '../errors.js';

/** Go's limit on a chunk-size line (net/http/internal/chunked.go). */
const MAX_CHUNK_LINE_BYTES = 4096;

/** Reads the body; throws past `maxBytes`, on a malformed chunked body, or at an end within it. */
export async function readRawBody(source: Readable, headers: IncomingHttpHeaders, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const complete = await eachBodyChunk(source, headers, (chunk) => {
    size += chunk.length;
    if (size > maxBytes) throw invalidParameter(`request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk);
  });
  // Go's JSON decoder's words for a body cut short
  if (!complete) throw invalidParameter('unexpected EOF');
  return Buffer.concat(chunks);
}

/** Reads the body and drops it; false when the stream ended within it. Throws on a malformed chunked body. */
export function skipRawBody(source: Readable, headers: IncomingHttpHeaders): Promise<boolean> {
  return eachBodyChunk(source, headers, () => {});
}

async function eachBodyChunk(source: Readable, headers: IncomingHttpHeaders, onData: (chunk: Buffer) => void): Promise<boolean> {
  const bytes = new SocketBytes(source);
  if (/(^|,)\s*chunked\s*$/i.test(headers['transfer-encoding'] ?? '')) return eachChunk(bytes, onData);
  let left = Number(headers['content-length'] ?? 0);
  while (left > 0) {
    const chunk = await bytes.next(left);
    if (chunk === undefined) return false;
    onData(chunk);
    left -= chunk.length;
  }
  return true;
}

/** RFC 9112's chunked coding, as Go reads it: size lines may end in LF alone, extensions and trailers are dropped. */
async function eachChunk(bytes: SocketBytes, onData: (chunk: Buffer) => void): Promise<boolean> {
  for (;;) {
    const line = await bytes.line();
    if (line === undefined) return false;
    const size = line.split(';')[0].trim();
    if (!/^[0-9a-f]{1,15}$/i.test(size)) throw malformed();
    let left = parseInt(size, 16);
    if (left === 0) break;
    while (left > 0) {
      const chunk = await bytes.next(left);
      if (chunk === undefined) return false;
      onData(chunk);
      left -= chunk.length;
    }
    const end = await bytes.line();
    if (end === undefined) return false;
    if (end !== '') throw malformed();
  }
  // trailer fields, up to the empty line
  for (;;) {
    const line = await bytes.line();
    if (line === undefined) return false;
    if (line === '') return true;
  }
}

function malformed() {
  return invalidParameter('malformed chunked encoding');
}

/**
 * The socket's bytes, taken as needed and never more: what follows the body stays on the socket
 * as it came, with no read-ahead to put back (which a half-close right after it would refuse).
 */
class SocketBytes {
  private readonly source: Readable;

  constructor(source: Readable) {
    this.source = source;
  }

  /** Up to `max` bytes, at least one; undefined at the end of the stream. */
  async next(max: number): Promise<Buffer | undefined> {
    for (;;) {
      const chunk = this.source.read(Math.min(max, Math.max(this.source.readableLength, 1))) as Buffer | null;
      if (chunk !== null) return chunk;
      if (this.source.readableEnded || this.source.destroyed) return undefined;
      await moreOrEnd(this.source);
    }
  }

  /** A line without its LF and a CR before it, read a byte at a time; undefined at the end of the stream. */
  async line(): Promise<string | undefined> {
    const line: number[] = [];
    for (;;) {
      const byte = await this.next(1);
      if (byte === undefined) return undefined;
      if (byte[0] === 0x0a) return Buffer.from(line).toString('latin1').replace(/\r$/, '');
      if (line.length === MAX_CHUNK_LINE_BYTES) throw invalidParameter('header line too long');
      line.push(byte[0]);
    }
  }
}

function moreOrEnd(source: Readable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      source.off('readable', done);
      source.off('end', done);
      source.off('close', done);
      resolve();
    };
    source.on('readable', done);
    source.on('end', done);
    source.on('close', done);
  });
}
