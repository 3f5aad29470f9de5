import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeNodeDescription } from './node-description.js';

describe('decodeNodeDescription', () => {
  it('keeps a description as a node sends it', () => {
    const d = { hostname: 'n1', platform: { architecture: 'x86_64', os: 'linux' }, resources: { nanoCpus: 2e9, memoryBytes: 2 ** 33 }, engine: { engineVersion: '0.1.0', labels: { a: 'b' }, plugins: [{ type: 'Log', name: 'json-file' }] } };
    assert.deepEqual(decodeNodeDescription(d), d);
  });

  it('drops what is not of its type, and keeps nothing else a node sends', () => {
    const d = decodeNodeDescription({ hostname: 7, platform: 'x', resources: { nanoCpus: -1, memoryBytes: 'lots' }, engine: { labels: { ok: 'yes', bad: 1 }, plugins: [{ type: 'Log' }, 'x', { type: 'Network', name: 'bridge', extra: true }] }, injected: { much: 'data' } });
    assert.deepEqual(d, { hostname: '', platform: { architecture: '', os: '' }, resources: { nanoCpus: 0, memoryBytes: 0 }, engine: { engineVersion: '', labels: { ok: 'yes' }, plugins: [{ type: 'Network', name: 'bridge' }] } });
    assert.deepEqual(decodeNodeDescription(undefined).hostname, '');
  });
});
