import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goClean, goDir } from './go-path.js';

test('goClean follows Go', () => {
  const cases: Array<[string, string]> = [
    ['', '.'],
    ['.', '.'],
    ['a/', 'a'],
    ['/', '/'],
    ['//a//b/', '/a/b'],
    ['./a/./b', 'a/b'],
    ['a/../..', '..'],
    ['../../a', '../../a'],
    ['/../a', '/a'],
    ['a/b/../../../c', '../c'],
  ];
  for (const [input, want] of cases) assert.equal(goClean(input), want, input);
});

test('goDir follows Go', () => {
  const cases: Array<[string, string]> = [
    ['file', '.'],
    ['a/b', 'a'],
    ['a/b/', 'a/b'],
    ['/a', '/'],
    ['/', '/'],
    ['', '.'],
  ];
  for (const [input, want] of cases) assert.equal(goDir(input), want, input);
});
