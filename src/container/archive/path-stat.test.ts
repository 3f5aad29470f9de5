import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goFileMode } from './path-stat.js';

test("st_mode as Go's os.FileMode, as dockerd sends it", () => {
  assert.equal(goFileMode(0o040755), 2147484141);
  assert.equal(goFileMode(0o041777), 2148532735);
  assert.equal(goFileMode(0o120777), 134218239);
  assert.equal(goFileMode(0o100644), 420);
  assert.equal(goFileMode(0o104755), 2 ** 23 + 0o755);
  assert.equal(goFileMode(0o020666), 2 ** 26 + 2 ** 21 + 0o666);
  assert.equal(goFileMode(0o010644), 2 ** 25 + 0o644);
});
