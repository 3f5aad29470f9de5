import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeTmpfsOptions } from './tmpfs-options.js';

describe('mergeTmpfsOptions', () => {
  it("keeps dockerd's defaults ahead of the data, as its spec shows", () => {
    assert.deepEqual(mergeTmpfsOptions(['noexec', 'nosuid', 'nodev', 'rprivate', 'size=1m', 'mode=700']), ['noexec', 'nosuid', 'nodev', 'rprivate', 'size=1m', 'mode=700']);
  });

  it('lets the last word of a kind win', () => {
    assert.deepEqual(mergeTmpfsOptions(['noexec', 'nosuid', 'nodev', 'rprivate', 'exec', 'size=1m', 'size=2m', 'rshared']), ['nosuid', 'nodev', 'exec', 'size=2m', 'rshared']);
  });

  it('refuses unknown data', () => {
    assert.throws(() => mergeTmpfsOptions(['foo=bar']), { kind: 'invalidParameter', message: 'Invalid tmpfs option ["foo" "bar"]' });
    assert.throws(() => mergeTmpfsOptions(['bogus']), { message: 'Invalid tmpfs option ["bogus"]' });
  });
});
