import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringifyWithBigInts } from './json-bigint.js';

test('bigints are written as exact JSON numbers; strings stay strings', () => {
  assert.equal(stringifyWithBigInts({ a: 9223372036854771712n, b: [1n, 2], c: 'x\u0001', d: -3n }), '{"a":9223372036854771712,"b":[1,2],"c":"x\\u0001","d":-3}');
});
