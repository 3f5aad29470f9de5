// The first bytes of a stream, read to tell what it holds (a compression's magic number), then put
// back so the stream reads whole. No stage is added between source and reader: it would cost on
// every chunk of a layer or build context of gigabytes.
import { Readable } from 'node:stream';

/** Up to `n` bytes from the start of `source` (fewer if it ends first), and the stream to read it all from. */
export async function readHead(source: Readable, n: number): Promise<{ head: Buffer; stream: Readable }> {
  const head = await peek(source, n);
  return { head, stream: unread(head, source) };
}

async function peek(source: Readable, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const chunk = source.read() as Buffer | null;
    if (chunk === null) {
      if (source.readableEnded) break;
      // a source that failed before we listened says so no more: its error is kept
      if (source.destroyed) throw source.errored ?? new Error('the stream closed before its first bytes');
      await new Promise<void>((resolve, reject) => {
        const done = () => {
          source.off('readable', done);
          source.off('end', done);
          source.off('error', fail);
          resolve();
        };
        const fail = (err: Error) => {
          done();
          reject(err);
        };
        source.once('readable', done);
        source.once('end', done);
        source.once('error', fail);
      });
      continue;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

/** `source` with `head`, read from it, put back in front. */
function unread(head: Buffer, source: Readable): Readable {
  // once it has ended, a stream takes nothing back
  if (source.readableEnded) return Readable.from(head.length > 0 ? [head] : []);
  if (head.length > 0) source.unshift(head);
  return source;
}
