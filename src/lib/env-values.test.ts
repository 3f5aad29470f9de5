import assert from 'node:assert/strict';
import { it } from 'node:test';
import { envKey, replaceOrAppendEnv } from './env-values.js';

it('replaces keys of the defaults where they stand, appends others (both of a key given twice, as dockerd) and removes bare keys', () => {
  const defaults = ['PATH=/bin', 'HOSTNAME=abc', 'A=1', 'B=2'];
  assert.deepEqual(replaceOrAppendEnv(defaults, ['A=x', 'C=3', 'HOSTNAME', 'NOPE', 'C=4']), ['PATH=/bin', 'A=x', 'B=2', 'C=3', 'C=4']);
  assert.deepEqual(defaults, ['PATH=/bin', 'HOSTNAME=abc', 'A=1', 'B=2']);
  assert.deepEqual(replaceOrAppendEnv([], ['E=', 'F=a=b']), ['E=', 'F=a=b']);
  assert.equal(envKey('F=a=b'), 'F');
  assert.equal(envKey('G'), 'G');
});
