import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchesPatterns, PatternMatcher } from './pattern-matcher.js';

// moby v20.10 pkg/fileutils/fileutils_test.go TestMatches, with the Linux-only case
const MOBY_MATCHES: Array<[string, string, boolean]> = [
  ['**', 'file', true],
  ['**', 'file/', true],
  ['**/', 'file', true],
  ['**/', 'file/', true],
  ['**', '/', true],
  ['**/', '/', true],
  ['**', 'dir/file', true],
  ['**/', 'dir/file', true],
  ['**', 'dir/file/', true],
  ['**/', 'dir/file/', true],
  ['**/**', 'dir/file', true],
  ['**/**', 'dir/file/', true],
  ['dir/**', 'dir/file', true],
  ['dir/**', 'dir/file/', true],
  ['dir/**', 'dir/dir2/file', true],
  ['dir/**', 'dir/dir2/file/', true],
  ['**/dir2/*', 'dir/dir2/file', true],
  ['**/dir2/*', 'dir/dir2/file/', true],
  ['**/dir2/**', 'dir/dir2/dir3/file', true],
  ['**/dir2/**', 'dir/dir2/dir3/file/', true],
  ['**file', 'file', true],
  ['**file', 'dir/file', true],
  ['**/file', 'dir/file', true],
  ['**file', 'dir/dir/file', true],
  ['**/file', 'dir/dir/file', true],
  ['**/file*', 'dir/dir/file', true],
  ['**/file*', 'dir/dir/file.txt', true],
  ['**/file*txt', 'dir/dir/file.txt', true],
  ['**/file*.txt', 'dir/dir/file.txt', true],
  ['**/file*.txt*', 'dir/dir/file.txt', true],
  ['**/**/*.txt', 'dir/dir/file.txt', true],
  ['**/**/*.txt2', 'dir/dir/file.txt', false],
  ['**/*.txt', 'file.txt', true],
  ['**/**/*.txt', 'file.txt', true],
  ['a**/*.txt', 'a/file.txt', true],
  ['a**/*.txt', 'a/dir/file.txt', true],
  ['a**/*.txt', 'a/dir/dir/file.txt', true],
  ['a/*.txt', 'a/dir/file.txt', false],
  ['a/*.txt', 'a/file.txt', true],
  ['a/*.txt**', 'a/file.txt', true],
  ['a[b-d]e', 'ae', false],
  ['a[b-d]e', 'ace', true],
  ['a[b-d]e', 'aae', false],
  ['a[^b-d]e', 'aze', true],
  ['.*', '.foo', true],
  ['.*', 'foo', false],
  ['abc.def', 'abcdef', false],
  ['abc.def', 'abc.def', true],
  ['abc.def', 'abcZdef', false],
  ['abc?def', 'abcZdef', true],
  ['abc?def', 'abcdef', false],
  ['a\\\\', 'a\\', true],
  ['**/foo/bar', 'foo/bar', true],
  ['**/foo/bar', 'dir/foo/bar', true],
  ['**/foo/bar', 'dir/dir2/foo/bar', true],
  ['abc/**', 'abc', false],
  ['abc/**', 'abc/def', true],
  ['abc/**', 'abc/def/ghi', true],
  ['**/.foo', '.foo', true],
  ['**/.foo', 'bar.foo', false],
  ['a\\*b', 'a*b', true],
];

test("PatternMatcher passes moby's TestMatches", () => {
  for (const [pattern, file, want] of MOBY_MATCHES) {
    assert.equal(new PatternMatcher([pattern]).matches(file), want, `pattern=${JSON.stringify(pattern)} file=${JSON.stringify(file)}`);
  }
});

test("PatternMatcher keeps 20.10's quirks: one prefix of the parents for **, case matters", () => {
  assert.equal(new PatternMatcher(['**/foo']).matches('a/b/foo/x'), false);
  assert.equal(new PatternMatcher(['**/foo']).matches('a/foo/x'), true);
  assert.equal(new PatternMatcher(['FOO']).matches('foo'), false);
});

test('matchesPatterns: exceptions, directories, the root, malformed patterns (moby fileutils tests)', () => {
  assert.equal(matchesPatterns('fileutils.go', ['*']), true);
  assert.equal(matchesPatterns('fileutils.go', ['*.go']), true);
  assert.equal(matchesPatterns('fileutils.go', ['!fileutils.go', '*.go']), true);
  assert.equal(matchesPatterns('docs/README.md', ['docs', '!docs/README.md']), false);
  assert.equal(matchesPatterns('docs/README.md', ['docs/', '!docs/README.md']), false);
  assert.equal(matchesPatterns('docs/README.md', ['docs/*', '!docs/README.md']), false);
  assert.equal(matchesPatterns('fileutils.go', ['*.go', '!fileutils.go']), false);
  assert.equal(matchesPatterns('.', ['*.go']), false);
  assert.equal(matchesPatterns('./sub/Df', ['*']), true);
  assert.equal(matchesPatterns('/any/path/there', []), false);
  assert.equal(matchesPatterns('any', ['[', 'any']), false);
  assert.equal(matchesPatterns('any', ['!', 'any']), false);
});

test('PatternMatcher refuses what NewPatternMatcher refuses', () => {
  assert.throws(() => new PatternMatcher(['!']), /illegal exclusion pattern: "!"/);
  for (const bad of ['[', 'a[', '[]a]', '[a-]', 'a\\', '[^]']) assert.throws(() => new PatternMatcher([bad]), /syntax error in pattern/, bad);
  assert.equal(new PatternMatcher(['docs', '  !docs/README.md']).exclusions, true);
  assert.equal(new PatternMatcher(['docs', 'config', '']).exclusions, false);
});
