// A context archive that stops right after its last entry's bytes, before the padding and the two
// zero blocks that end a tar, as the docker CLI sends one when it adds a Dockerfile from outside
// the context: Go's tar reader takes the end of input there as the archive's end, tar-stream fails
// on it. This passes the archive through, following its headers, and at the end adds the padding
// and end blocks such an archive lacks. One cut inside an entry's bytes is left as it is, for the
// reader to fail on ("unexpected EOF").
import { Transform, type TransformCallback } from 'node:stream';

const BLOCK = 512;
/** Go's isHeaderOnlyType: these entries' size field says nothing of bytes that follow */
const HEADER_ONLY = new Set(['1', '2', '3', '4', '5', '6']);

export function completeTarEnd(): Transform {
  let header = Buffer.alloc(0);
  let dataLeft = 0;
  let padLeft = 0;
  let ended = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      let at = 0;
      while (at < chunk.length && !ended) {
        if (dataLeft > 0 || padLeft > 0) {
          const take = Math.min(dataLeft + padLeft, chunk.length - at);
          const fromData = Math.min(dataLeft, take);
          dataLeft -= fromData;
          padLeft -= take - fromData;
          at += take;
          continue;
        }
        const take = Math.min(BLOCK - header.length, chunk.length - at);
        header = Buffer.concat([header, chunk.subarray(at, at + take)]);
        at += take;
        if (header.length < BLOCK) break;
        if (header.every((b) => b === 0)) ended = true;
        else {
          const type = String.fromCharCode(header[156]);
          const size = HEADER_ONLY.has(type) ? 0 : entrySize(header);
          // a header that is none: the reader says so, nothing is added
          if (!Number.isSafeInteger(size) || size < 0) ended = true;
          dataLeft = ended ? 0 : size;
          padLeft = ended ? 0 : (BLOCK - (size % BLOCK)) % BLOCK;
        }
        header = Buffer.alloc(0);
      }
      done(null, chunk);
    },
    flush(done: TransformCallback) {
      // cut inside a header or an entry's bytes: the reader says so
      if (ended || header.length > 0 || dataLeft > 0) return done();
      done(null, Buffer.alloc(padLeft + 2 * BLOCK));
    },
  });
}

/** The size field: octal text, or base-256 when its first byte has the high bit set. */
function entrySize(header: Buffer): number {
  const field = header.subarray(124, 136);
  if (field[0] & 0x80) {
    let n = field[0] & 0x7f;
    for (const b of field.subarray(1)) n = n * 256 + b;
    return n;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}
