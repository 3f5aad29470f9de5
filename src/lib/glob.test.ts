import assert from 'node:assert/strict';
import { it } from 'node:test';
import { globMatch } from './glob.js';

it('matches as Go path.Match does', () => {
  const cases: Array<[string, string, boolean]> = [
    ['busybox', 'busybox', true],
    ['busy*', 'busybox', true],
    ['*', 'library/busybox', false],
    ['*/*', 'library/busybox', true],
    ['busybox:*', 'busybox:latest', true],
    ['b?sybox', 'busybox', true],
    ['[ab]usybox', 'busybox', true],
    ['[!b]usybox', 'busybox', false],
    ['a.b', 'axb', false],
    ['[', 'x', false],
  ];
  for (const [pattern, name, want] of cases) assert.equal(globMatch(pattern, name), want, `${pattern} ~ ${name}`);
});
