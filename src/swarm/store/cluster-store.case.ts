// The contract every ClusterStore keeps (cluster-store.ts), as one suite that each implementation's
// test runs against its own stores: etcd's semantics for revisions, transactions, ranges at a
// revision, watches with previous values, leases and compaction.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { CompactedError, LeaseNotFoundError, type ClusterStore, type WatchEvent } from './cluster-store.js';

const bytes = (s: string) => Buffer.from(s);
const text = (v: Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v).toString());

/** Collects a watch's events until `count` have come (or fails after a while). */
function collect(store: ClusterStore, prefix: string, fromRevision: number, count: number): Promise<Array<{ type: string; key: string; value?: string; prev?: string; revision: number }>> {
  const seen: Array<{ type: string; key: string; value?: string; prev?: string; revision: number }> = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      watch.cancel();
      reject(new Error(`only ${seen.length} of ${count} events: ${JSON.stringify(seen)}`));
    }, 5000);
    const watch = store.watch(
      prefix,
      fromRevision,
      (events: WatchEvent[], revision: number) => {
        for (const e of events) seen.push({ type: e.type, key: e.kv.key, ...(e.type === 'put' ? { value: text(e.kv.value) } : {}), ...(e.prev ? { prev: text(e.prev.value) } : {}), revision });
        if (seen.length >= count) {
          clearTimeout(timer);
          watch.cancel();
          resolve(seen);
        }
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

export function clusterStoreContract(name: string, makeStore: () => Promise<ClusterStore>): void {
  describe(`ClusterStore contract: ${name}`, () => {
    it('counts revisions as etcd: one per transaction that changes something, none for one that does not', async () => {
      const store = await makeStore();
      try {
        const start = (await store.range('/')).revision;
        const a = await store.txn([], [{ put: { key: '/a', value: bytes('1') } }, { put: { key: '/b', value: bytes('2') } }]);
        assert.deepEqual(a, { succeeded: true, revision: start + 1 });
        const kvA = await store.get('/a');
        assert.deepEqual({ ...kvA, value: text(kvA?.value) }, { key: '/a', value: '1', createRevision: start + 1, modRevision: start + 1, version: 1 });
        await store.txn([], [{ put: { key: '/a', value: bytes('3') } }]);
        const again = await store.get('/a');
        assert.deepEqual([again?.createRevision, again?.modRevision, again?.version, text(again?.value)], [start + 1, start + 2, 2, '3']);
        // deleting nothing changes nothing
        assert.deepEqual(await store.txn([], [{ delete: { key: '/none' } }]), { succeeded: true, revision: start + 2 });
        await store.txn([], [{ delete: { key: '/a' } }]);
        assert.equal(await store.get('/a'), undefined);
        await store.txn([], [{ put: { key: '/a', value: bytes('4') } }]);
        const reborn = await store.get('/a');
        assert.deepEqual([reborn?.createRevision, reborn?.version], [start + 4, 1]);
      } finally {
        await store.close();
      }
    });

    it('applies one branch of a transaction by the compared modification revisions, 0 meaning absent', async () => {
      const store = await makeStore();
      try {
        const created = await store.txn([{ key: '/obj', modRevision: 0 }], [{ put: { key: '/obj', value: bytes('v1') } }, { put: { key: '/names/x', value: bytes('obj') } }]);
        assert.equal(created.succeeded, true);
        const twice = await store.txn([{ key: '/obj', modRevision: 0 }], [{ put: { key: '/obj', value: bytes('other') } }]);
        assert.equal(twice.succeeded, false);
        assert.equal(text((await store.get('/obj'))?.value), 'v1');
        // an update at the version read succeeds once; the stale one takes the failure branch
        const read = (await store.get('/obj'))!.modRevision;
        assert.equal((await store.txn([{ key: '/obj', modRevision: read }], [{ put: { key: '/obj', value: bytes('v2') } }])).succeeded, true);
        const stale = await store.txn([{ key: '/obj', modRevision: read }], [{ put: { key: '/obj', value: bytes('v3') } }], [{ put: { key: '/conflicts', value: bytes('1') } }]);
        assert.equal(stale.succeeded, false);
        assert.equal(text((await store.get('/obj'))?.value), 'v2');
        assert.equal(text((await store.get('/conflicts'))?.value), '1');
        await assert.rejects(store.txn([], [{ put: { key: '/d', value: bytes('1') } }, { delete: { key: '/d' } }]), /duplicate key/);
        assert.equal(await store.get('/d'), undefined, 'a refused transaction changes nothing');
      } finally {
        await store.close();
      }
    });

    it('ranges over a prefix in key order, now and as it was at an earlier revision', async () => {
      const store = await makeStore();
      try {
        await store.txn([], [{ put: { key: '/r/b', value: bytes('b1') } }, { put: { key: '/r/a', value: bytes('a1') } }, { put: { key: '/rx', value: bytes('x') } }]);
        const { revision: r1 } = await store.range('/r/');
        await store.txn([], [{ put: { key: '/r/b', value: bytes('b2') } }, { put: { key: '/r/c', value: bytes('c1') } }]);
        await store.txn([], [{ delete: { key: '/r/a' } }]);
        const now = await store.range('/r/');
        assert.deepEqual(now.kvs.map((kv) => [kv.key, text(kv.value)]), [['/r/b', 'b2'], ['/r/c', 'c1']]);
        const then = await store.range('/r/', { revision: r1 });
        assert.equal(then.revision, r1);
        assert.deepEqual(then.kvs.map((kv) => [kv.key, text(kv.value)]), [['/r/a', 'a1'], ['/r/b', 'b1']]);
        await store.txn([], [{ deletePrefix: { prefix: '/r/' } }]);
        assert.deepEqual((await store.range('/r/')).kvs, []);
        assert.equal(text((await store.get('/rx'))?.value), 'x');
      } finally {
        await store.close();
      }
    });

    it('watches from a revision: the history, then each change as it commits, with previous values', async () => {
      const store = await makeStore();
      try {
        const { revision: r1 } = await store.txn([], [{ put: { key: '/w/a', value: bytes('1') } }]);
        await store.txn([], [{ put: { key: '/w/a', value: bytes('2') } }, { put: { key: '/other', value: bytes('-') } }]);
        const events = collect(store, '/w/', r1, 4);
        await store.txn([], [{ delete: { key: '/w/a' } }]);
        const { revision: last } = await store.txn([], [{ put: { key: '/w/b', value: bytes('3') } }]);
        assert.deepEqual(await events, [
          { type: 'put', key: '/w/a', value: '1', revision: r1 },
          { type: 'put', key: '/w/a', value: '2', prev: '1', revision: r1 + 1 },
          { type: 'delete', key: '/w/a', prev: '2', revision: r1 + 2 },
          { type: 'put', key: '/w/b', value: '3', revision: last },
        ]);
      } finally {
        await store.close();
      }
    });

    it('watches from revision 0 what comes once the watch is set up, not the history', async () => {
      const store = await makeStore();
      try {
        await store.txn([], [{ put: { key: '/z/old', value: bytes('1') } }]);
        const events = collect(store, '/z/', 0, 1);
        // from 0 is from when the store has set the watch up (etcd: when its server has), which no
        // call tells: a caller that must miss nothing watches from a revision it read
        await sleep(500);
        const { revision } = await store.txn([], [{ put: { key: '/z/new', value: bytes('2') } }]);
        assert.deepEqual(await events, [{ type: 'put', key: '/z/new', value: '2', revision }]);
      } finally {
        await store.close();
      }
    });

    it('deletes the keys of a lease when it is revoked or not kept alive, and watchers see it', async () => {
      const store = await makeStore();
      try {
        const kept = await store.grantLease(2000);
        const revoked = await store.grantLease(60_000);
        const lapsing = await store.grantLease(1000);
        await store.txn([], [{ put: { key: '/l/kept', value: bytes('k'), lease: kept } }, { put: { key: '/l/revoked', value: bytes('r'), lease: revoked } }, { put: { key: '/l/lapsing', value: bytes('l'), lease: lapsing } }]);
        assert.equal((await store.get('/l/kept'))?.lease, kept);
        const { revision } = await store.range('/l/');
        const deletes = collect(store, '/l/', revision + 1, 2);
        await store.revokeLease(revoked);
        assert.equal(await store.get('/l/revoked'), undefined);
        for (let i = 0; i < 8; i++) {
          await sleep(300);
          await store.keepAlive(kept);
        }
        assert.deepEqual((await deletes).map((e) => [e.type, e.key, e.prev]), [
          ['delete', '/l/revoked', 'r'],
          ['delete', '/l/lapsing', 'l'],
        ]);
        assert.equal(text((await store.get('/l/kept'))?.value), 'k');
        await assert.rejects(store.keepAlive(lapsing), LeaseNotFoundError);
        await assert.rejects(store.txn([], [{ put: { key: '/l/x', value: bytes('x'), lease: lapsing } }]), LeaseNotFoundError);
      } finally {
        await store.close();
      }
    });

    it('refuses ranges and watches before its compaction', async () => {
      const store = await makeStore();
      try {
        const { revision: old } = await store.txn([], [{ put: { key: '/c', value: bytes('1') } }]);
        const { revision: compactAt } = await store.txn([], [{ put: { key: '/c', value: bytes('2') } }]);
        await store.txn([], [{ put: { key: '/c', value: bytes('3') } }]);
        await store.compact(compactAt);
        await assert.rejects(store.range('/c', { revision: old }), CompactedError);
        await assert.rejects(collect(store, '/c', old, 1), CompactedError);
        assert.equal(text((await store.range('/c', { revision: compactAt })).kvs[0]?.value), '2');
        assert.deepEqual((await collect(store, '/c', compactAt + 1, 1)).map((e) => e.value), ['3']);
      } finally {
        await store.close();
      }
    });
  });
}
