import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { followSymlinkInScope, lexicalPath } from './scoped-path.js';

let root: string;
before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'scoped-path-'));
  mkdirSync(path.join(root, 'd', 'e'), { recursive: true });
  writeFileSync(path.join(root, 'f'), 'f');
  symlinkSync('/etc/passwd', path.join(root, 'abs'));
  symlinkSync('../../../..', path.join(root, 'd', 'up'));
  symlinkSync('e', path.join(root, 'd', 'rel'));
  symlinkSync('/d', path.join(root, 'dl'));
  symlinkSync('loop2', path.join(root, 'loop1'));
  symlinkSync('loop1', path.join(root, 'loop2'));
});
after(() => rmSync(root, { recursive: true, force: true }));

test('followSymlinkInScope resolves links inside the root, never out of it', () => {
  assert.equal(followSymlinkInScope(root, 'f'), 'f');
  assert.equal(followSymlinkInScope(root, '/f'), 'f');
  assert.equal(followSymlinkInScope(root, '.'), '.');
  assert.equal(followSymlinkInScope(root, 'abs'), 'etc/passwd');
  assert.equal(followSymlinkInScope(root, 'd/up/f'), 'f');
  assert.equal(followSymlinkInScope(root, 'd/rel'), 'd/e');
  assert.equal(followSymlinkInScope(root, 'dl/rel/x'), 'd/e/x');
  assert.equal(followSymlinkInScope(root, 'missing/x'), 'missing/x');
  assert.equal(followSymlinkInScope(root, 'd/e/../../f'), 'f');
});

test('followSymlinkInScope refuses what dockerd calls outside the context', () => {
  assert.equal(followSymlinkInScope(root, '../x'), undefined);
  assert.equal(followSymlinkInScope(root, '/../x'), undefined);
  assert.equal(followSymlinkInScope(root, 'd/../../x'), undefined);
  // a file where a directory should be
  assert.equal(followSymlinkInScope(root, 'f/x'), undefined);
  assert.equal(followSymlinkInScope(root, 'loop1'), undefined);
});

test('lexicalPath cleans as filepath.Join does', () => {
  assert.equal(lexicalPath('//a/./b/'), 'a/b');
  assert.equal(lexicalPath(''), '.');
  assert.equal(lexicalPath('..'), undefined);
});
