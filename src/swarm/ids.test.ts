import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base36, newSwarmId } from './ids.js';

describe('newSwarmId', () => {
  it('is 25 base-36 characters, as swarmkit IDs (identity.NewID), new each time', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newSwarmId()));
    assert.equal(ids.size, 200);
    for (const id of ids) assert.match(id, /^[0-9a-z]{25}$/);
  });
});

describe('base36', () => {
  it("writes bytes as a big-endian number, zero-padded as Go's %0*s of big.Int.Text(36)", () => {
    assert.equal(base36(Buffer.from([]), 3), '000');
    assert.equal(base36(Buffer.from([0]), 3), '000');
    assert.equal(base36(Buffer.from([35]), 3), '00z');
    assert.equal(base36(Buffer.from([1, 0]), 3), '074'); // 256
    // 2^128 - 1 needs all of 25 digits: no 16-byte value is cut
    assert.equal(base36(Buffer.alloc(16, 0xff), 25), 'f5lxx1zz5pnorynqglhzmsp33');
  });
});
