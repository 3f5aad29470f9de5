import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { Staging } from '../store/staging.js';
import { sha256Digest } from './digest.js';
import { ImageRecords } from './image-records.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-records-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('moves a tag between images in one write and survives a reopen', async () => {
  const staging = new Staging(path.join(dir, 'staging'));
  const a = sha256Digest('a');
  const b = sha256Digest('b');
  const records = new ImageRecords(dir, staging);
  await records.put({ id: a });
  await records.put({ id: b });
  assert.deepEqual(await records.setRefs([['docker.io/library/x:1', a]]), []);
  assert.deepEqual(await records.setRefs([['docker.io/library/x:1', b]]), [a]);
  const reopened = new ImageRecords(dir, staging);
  assert.equal(reopened.resolve('docker.io/library/x:1'), b);
  assert.deepEqual(reopened.refsOf(a), []);
});

it('drops references to an image whose record is gone', async () => {
  const staging = new Staging(path.join(dir, 'staging'));
  const c = sha256Digest('c');
  const records = new ImageRecords(dir, staging);
  await records.put({ id: c });
  await records.setRefs([['docker.io/library/y:1', c]]);
  await records.delete(c);
  assert.equal(new ImageRecords(dir, staging).resolve('docker.io/library/y:1'), undefined);
});
