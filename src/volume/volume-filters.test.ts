import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FilterArgs } from '../lib/filters.js';
import { selectPrunable, selectVolumes } from './volume-filters.js';
import type { VolumeRecord } from './volume-record.js';

const volume = (name: string, labels: Record<string, string> | null = null, driver = 'local'): VolumeRecord => ({ name, driver, createdAt: '2026-01-01T00:00:00Z', labels, options: null, scope: 'local' });
const all = [volume('v1', { a: 'b' }), volume('v2', { a: 'c', k: '1' }), volume('data', null, 'testdriver')];
const used = new Set(['v2']);
const users = (name: string) => (used.has(name) ? ['c1'] : []);
const names = (rs: VolumeRecord[]) => rs.map((r) => r.name);
const filters = (f: Record<string, string[]>) => FilterArgs.fromJson(JSON.stringify(f));

describe('selectVolumes', () => {
  it('matches name as a regular expression, driver exactly, labels as dockerd', () => {
    assert.deepEqual(names(selectVolumes(all, filters({ name: ['v'] }), users)), ['v1', 'v2']);
    assert.deepEqual(names(selectVolumes(all, filters({ name: ['^d'] }), users)), ['data']);
    assert.deepEqual(names(selectVolumes(all, filters({ driver: ['test'] }), users)), []);
    assert.deepEqual(names(selectVolumes(all, filters({ driver: ['testdriver'] }), users)), ['data']);
    assert.deepEqual(names(selectVolumes(all, filters({ label: ['a'] }), users)), ['v1', 'v2']);
    assert.deepEqual(names(selectVolumes(all, filters({ label: ['a=c', 'k'] }), users)), ['v2']);
  });

  it('keeps the unreferenced with dangling=true, the referenced with false; true wins over both', () => {
    assert.deepEqual(names(selectVolumes(all, filters({ dangling: ['true'] }), users)), ['v1', 'data']);
    assert.deepEqual(names(selectVolumes(all, filters({ dangling: ['0'] }), users)), ['v2']);
    assert.deepEqual(names(selectVolumes(all, filters({ dangling: ['true', 'false'] }), users)), ['v1', 'data']);
  });

  it("refuses what dockerd refuses, capitalized as it writes it", () => {
    assert.throws(() => selectVolumes(all, filters({ bogus: ['x'] }), users), { message: "Invalid filter 'bogus'" });
    assert.throws(() => selectVolumes(all, filters({ 'label!': ['x'] }), users), { message: "Invalid filter 'label!'" });
    assert.throws(() => selectVolumes(all, filters({ dangling: ['bad'] }), users), { message: "Invalid filter 'dangling=[bad]'" });
  });
});

describe('selectPrunable', () => {
  it('spares the referenced and what label! names; takes label and label! only', () => {
    assert.deepEqual(names(selectPrunable(all, FilterArgs.empty(), users)), ['v1', 'data']);
    assert.deepEqual(names(selectPrunable(all, filters({ label: ['a'] }), users)), ['v1']);
    assert.deepEqual(names(selectPrunable(all, filters({ 'label!': ['a=b'] }), users)), ['data']);
    assert.throws(() => selectPrunable(all, filters({ all: ['true'] }), users), { message: "Invalid filter 'all'" });
  });
});
