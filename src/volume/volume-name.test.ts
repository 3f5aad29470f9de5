import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkVolumeName } from './volume-name.js';

describe('checkVolumeName', () => {
  it('takes names of two characters or more from the allowed set', () => {
    for (const name of ['ab', 'a.b_c-d', '0x', 'A1']) checkVolumeName(name);
  });

  it('calls one byte too short and anything else invalid, as dockerd', () => {
    assert.throws(() => checkVolumeName('a'), { message: 'create a: volume name is too short, names should be at least two alphanumeric characters' });
    for (const name of ['/x', '..', 'a/b', 'a b', '-x', '_x', '.x', 'a:b', 'é']) {
      assert.throws(() => checkVolumeName(name), { message: new RegExp(`^create ${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ".*" includes invalid characters for a local volume name`) });
    }
  });
});
