import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateContainerName } from './container-name.js';

describe('validateContainerName', () => {
  it('adds the leading slash, or keeps the one given', () => {
    assert.equal(validateContainerName('web_1.a-b'), '/web_1.a-b');
    assert.equal(validateContainerName('/ab'), '/ab');
  });
  for (const bad of ['a', '-ab', 'a b', '//ab', '', 'a/b', '_ab']) {
    it(`refuses ${JSON.stringify(bad)} with dockerd's message`, () => {
      assert.throws(() => validateContainerName(bad), {
        kind: 'invalidParameter',
        message: `Invalid container name (${bad}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed`,
      });
    });
  }
});
