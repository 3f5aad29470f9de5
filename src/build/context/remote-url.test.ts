import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGitURL, isURL } from './remote-url.js';

test('isURL and isGitURL follow urlutil', () => {
  assert.equal(isURL('http://h/x'), true);
  assert.equal(isURL('HTTP://h/x'), false);
  assert.equal(isURL('git://h/x'), false);
  for (const git of ['git://h/x', 'git@github.com:a/b.git', 'github.com/a/b', 'https://h/a/b.git', 'https://h/a/b.git#main:sub', 'http://h/foogit']) assert.equal(isGitURL(git), true, git);
  for (const other of ['https://h/a/b', 'https://h/a.git/x', 'file:///tmp/x', 'ssh://h/x.git']) assert.equal(isGitURL(other), false, other);
});
