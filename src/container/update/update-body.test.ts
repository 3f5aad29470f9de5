import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeUpdateBody } from './update-body.js';

test('an empty body is Go\'s EOF, a non-object a type error, null an empty update', () => {
  assert.throws(() => decodeUpdateBody(undefined, { pidsLimit: true }), { kind: 'system', message: 'EOF' });
  assert.throws(() => decodeUpdateBody([], { pidsLimit: true }), { kind: 'system', message: 'json: cannot unmarshal array into Go value of type container.UpdateConfig' });
  assert.deepEqual(decodeUpdateBody(null, { pidsLimit: true }), { resources: {} });
});

test('fields are typed as Go decodes them; fields of other structs are ignored', () => {
  assert.throws(() => decodeUpdateBody({ Memory: 'x' }, { pidsLimit: true }), { kind: 'system', message: 'json: cannot unmarshal string into Go struct field UpdateConfig.Memory of type int64' });
  assert.deepEqual(decodeUpdateBody({ Memory: 1, Privileged: true, RestartPolicy: { Name: 'always' } }, { pidsLimit: true }), {
    resources: { Memory: 1 },
    restartPolicy: { Name: 'always' },
  });
});

test('PidsLimit: 0 or below is unlimited (0); before API 1.40 it is ignored', () => {
  assert.equal(decodeUpdateBody({ PidsLimit: -5 }, { pidsLimit: true }).resources.PidsLimit, 0);
  assert.equal(decodeUpdateBody({ PidsLimit: 7 }, { pidsLimit: true }).resources.PidsLimit, 7);
  assert.equal(decodeUpdateBody({ PidsLimit: 7 }, { pidsLimit: false }).resources.PidsLimit, undefined);
  assert.equal(decodeUpdateBody({ PidsLimit: null }, { pidsLimit: true }).resources.PidsLimit, null);
});
