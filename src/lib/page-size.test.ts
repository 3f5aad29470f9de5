import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { auxvPageSize, pageSizeBytes } from './page-size.js';

/** An auxiliary vector of these (type, value) pairs and its AT_NULL end. */
function auxv(pairs: Array<[number, number]>, wordBytes: 4 | 8, endianness: 'LE' | 'BE'): Buffer {
  const words = [...pairs.flat(), 0, 0];
  const buf = Buffer.alloc(words.length * wordBytes);
  words.forEach((w, i) => {
    if (wordBytes === 4 && endianness === 'LE') buf.writeUInt32LE(w, i * 4);
    else if (wordBytes === 4) buf.writeUInt32BE(w, i * 4);
    else if (endianness === 'LE') buf.writeBigUInt64LE(BigInt(w), i * 8);
    else buf.writeBigUInt64BE(BigInt(w), i * 8);
  });
  return buf;
}

describe('page size', () => {
  it("is getconf's", () => {
    assert.equal(pageSizeBytes(), Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' })));
  });

  it('is found in vectors of either word size and byte order, and missing after AT_NULL', () => {
    for (const wordBytes of [4, 8] as const) {
      for (const endianness of ['LE', 'BE'] as const) {
        assert.equal(auxvPageSize(auxv([[33, 0x7fff0000], [16, 0xbfebfbff], [6, 65536], [17, 100]], wordBytes, endianness), wordBytes, endianness), 65536);
        assert.equal(auxvPageSize(auxv([[33, 1], [17, 100]], wordBytes, endianness), wordBytes, endianness), undefined);
      }
    }
    assert.equal(auxvPageSize(Buffer.concat([auxv([], 8, 'LE'), auxv([[6, 4096]], 8, 'LE')]), 8, 'LE'), undefined);
    assert.equal(auxvPageSize(Buffer.alloc(0), 8, 'LE'), undefined);
  });
});
