import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchGoFields } from './go-json-fields.js';

describe('matchGoFields', () => {
  const fields = ['DetachKeys', 'Tty', 'Cmd'];

  it('puts a key into the field it names without case, as Go decodes', () => {
    assert.deepEqual(matchGoFields({ detachKeys: 'ctrl-p', TTY: true, Cmd: ['sh'], other: 1 }, fields), { DetachKeys: 'ctrl-p', Tty: true, Cmd: ['sh'], other: 1 });
  });

  it('lets a later key for the same field win', () => {
    assert.deepEqual(matchGoFields({ DetachKeys: 'a', detachkeys: 'b' }, fields), { DetachKeys: 'b' });
    assert.deepEqual(matchGoFields({ detachkeys: 'b', DetachKeys: 'a' }, fields), { DetachKeys: 'a' });
  });

  it('leaves anything but an object as it is', () => {
    for (const body of [null, undefined, 'x', 1, [{ tty: true }]]) assert.deepEqual(matchGoFields(body, fields), body);
  });
});
