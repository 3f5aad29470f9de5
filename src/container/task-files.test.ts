import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nameTaskFiles, type TaskFile } from './task-files.js';

const file = (target: string, more: Partial<TaskFile> = {}): TaskFile => ({ target, data: Buffer.from('x'), uid: '0', gid: '0', mode: 0o444, ...more });

describe('nameTaskFiles', () => {
  it('names secrets then configs by their place, whatever their targets', () => {
    const named = nameTaskFiles({ secrets: [file('/run/secrets/a'), file('/run/secrets/b')], configs: [file('/a')] });
    assert.deepEqual(
      named.map(({ name, target }) => [name, target]),
      [['secret-0', '/run/secrets/a'], ['secret-1', '/run/secrets/b'], ['config-0', '/a']],
    );
  });

  it('refuses a relative target and an owner that is no decimal ID, as nothing could be made of them', () => {
    assert.throws(() => nameTaskFiles({ secrets: [file('run/secrets/a')], configs: [] }), { kind: 'invalidParameter', message: 'the target of a secret or config must be an absolute path: run/secrets/a' });
    assert.throws(() => nameTaskFiles({ secrets: [], configs: [file('/a', { gid: 'staff' })] }), { kind: 'invalidParameter', message: 'invalid owner "staff" for /a: a decimal ID is needed' });
    assert.throws(() => nameTaskFiles({ secrets: [file('/a', { uid: '-1' })], configs: [] }), { kind: 'invalidParameter' });
  });
});
