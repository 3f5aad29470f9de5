import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { removeTemporaryFiles, writeFileAtomic } from './atomic-file.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-atomic-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('writes whole, and what a write a kill cut left (its temporary file) goes at the next load, nothing else', () => {
  writeFileAtomic(path.join(dir, 'record.json'), '{"a":1}');
  assert.equal(readFileSync(path.join(dir, 'record.json'), 'utf8'), '{"a":1}');
  assert.deepEqual(readdirSync(dir), ['record.json']);
  writeFileSync(path.join(dir, '.record.json.tmp-0123456789ab'), '{"a":');
  writeFileSync(path.join(dir, '.hidden'), 'kept');
  writeFileSync(path.join(dir, 'notes.tmp-0123456789ab'), 'kept');
  removeTemporaryFiles(dir);
  assert.deepEqual(readdirSync(dir).sort(), ['.hidden', 'notes.tmp-0123456789ab', 'record.json']);
  removeTemporaryFiles(path.join(dir, 'missing'));
});
