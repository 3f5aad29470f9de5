import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signalNumber } from './signals.js';

test('names with or without SIG, in any case, and numbers', () => {
  assert.equal(signalNumber('SIGKILL'), 9);
  assert.equal(signalNumber('kill'), 9);
  assert.equal(signalNumber('term'), 15);
  assert.equal(signalNumber('15'), 15);
  assert.equal(signalNumber('SIGRTMIN+3'), 37);
  assert.equal(signalNumber('RTMAX'), 64);
});

test('anything else is dockerd\'s 400', () => {
  for (const bad of ['FOO', '0', '65', 'SIG', '-1']) {
    assert.throws(() => signalNumber(bad), (e: Error & { kind?: string }) => e.kind === 'invalidParameter' && e.message === `Invalid signal: ${bad}`);
  }
});
