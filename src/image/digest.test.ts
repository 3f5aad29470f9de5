import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chainIds, isDigest, parseDigest, sha256Digest } from './digest.js';

describe('digests', () => {
  it('computes sha256 digests', () => {
    assert.equal(sha256Digest(''), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
  it('checks the form', () => {
    assert.equal(isDigest('sha256:' + 'a'.repeat(64)), true);
    assert.equal(isDigest('sha256:' + 'A'.repeat(64)), false);
    assert.equal(isDigest('sha512:' + 'a'.repeat(64)), false);
    assert.throws(() => parseDigest('sha256:abc'), /invalid digest/);
  });
  it('computes chain IDs as the image spec defines them', () => {
    const a = sha256Digest('a');
    const b = sha256Digest('b');
    const c = sha256Digest('c');
    const ab = sha256Digest(`${a} ${b}`);
    assert.deepEqual(chainIds([a, b, c]), [a, ab, sha256Digest(`${ab} ${c}`)]);
    assert.deepEqual(chainIds([]), []);
  });
  it('matches Docker for a real single-layer image (the reference engine\'s busybox)', () => {
    // a one-layer image's chain ID is its diff ID
    const diff = 'sha256:e2ae6af89abe446bbdbed0e3dc6647b474be817aa395e77bf764a2ce603e09b4';
    assert.deepEqual(chainIds([diff]), [diff]);
  });
});
