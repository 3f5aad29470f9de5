import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { removeTemporaryFiles, writeFileAtomic } from './atomic-file.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-atomic-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('writes whole, and what a write a kill cut left (its temporary file) goes at the next load, nothing else', async () => {
  await writeFileAtomic(path.join(dir, 'record.json'), '{"a":1}');
  assert.equal(readFileSync(path.join(dir, 'record.json'), 'utf8'), '{"a":1}');
  assert.deepEqual(readdirSync(dir), ['record.json']);
  writeFileSync(path.join(dir, '.record.json.tmp-0123456789ab'), '{"a":');
  writeFileSync(path.join(dir, '.hidden'), 'kept');
  writeFileSync(path.join(dir, 'notes.tmp-0123456789ab'), 'kept');
  removeTemporaryFiles(dir);
  assert.deepEqual(readdirSync(dir).sort(), ['.hidden', 'notes.tmp-0123456789ab', 'record.json']);
  removeTemporaryFiles(path.join(dir, 'missing'));
});

it('lands the writes of one file in the order they were asked for, the last one whole', async () => {
  const file = path.join(dir, 'ordered.json');
  // the later writes are the shorter ones, which would land first if nothing held them back
  await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, JSON.stringify({ i, pad: 'x'.repeat((20 - i) * 100_000) }))));
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).i, 19);
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.ordered')), []);
});

it('refuses to write through a symlink and leaves no temporary file', async () => {
  const target = path.join(dir, 'target');
  writeFileSync(target, 'kept');
  symlinkSync(target, path.join(dir, 'link.json'));
  await assert.rejects(writeFileAtomic(path.join(dir, 'link.json'), 'x'), /refusing to write through the symlink/);
  assert.equal(readFileSync(target, 'utf8'), 'kept');
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.link')), []);
});
