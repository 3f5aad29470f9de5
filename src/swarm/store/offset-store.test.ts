import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { clusterStoreContract } from './cluster-store.case.js';
import { LocalStore } from './local-store.js';
import { OffsetStore } from './offset-store.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-offset-store-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const open = async (offset: number) => new OffsetStore(await LocalStore.open(path.join(scratch, `store-${dirs++}`)), offset);

clusterStoreContract('OffsetStore over LocalStore', () => open(1000));

describe('OffsetStore', () => {
  it('shows revisions past the offset, and refuses a compare of one from before it', async () => {
    const store = await open(500);
    try {
      const put = await store.txn([{ key: '/k', modRevision: 0 }], [{ put: { key: '/k', value: Buffer.from('v') } }]);
      assert.ok(put.succeeded);
      assert.ok(put.revision > 500);
      const kv = await store.get('/k');
      assert.equal(kv?.modRevision, put.revision);
      // a version a client read before the move: never the key's now
      assert.equal((await store.txn([{ key: '/k', modRevision: 400 }], [{ delete: { key: '/k' } }])).succeeded, false);
      assert.equal((await store.txn([{ key: '/k', modRevision: kv!.modRevision }], [{ delete: { key: '/k' } }])).succeeded, true);
    } finally {
      await store.close();
    }
  });
});
