// EtcdStore against a real etcd (test/helpers/etcd.ts): the cluster store's contract, each store
// on a namespace of its own in one etcd, then what only a store shared by several clients shows:
// one client's writes, watches and expired leases seen by another, namespaces kept apart, a watch
// that outlives an etcd restart, and mutual TLS.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startEtcd, type Etcd } from '../../../test/helpers/etcd.js';
import { makeTlsFixtures, type TlsFixtures } from '../../../test/helpers/tls.js';
import { clusterStoreContract } from './cluster-store.case.js';
import { LeaseNotFoundError, type ClusterStore, type WatchEvent } from './cluster-store.js';
import { EtcdStore, type EtcdStoreOptions } from './etcd-store.js';

const bytes = (s: string) => Buffer.from(s);
const text = (v: Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v).toString());

let etcd: Etcd;
before(async () => {
  etcd = await startEtcd();
});
after(() => etcd?.close());

let namespaces = 0;
const newNamespace = () => `/berth-test/${namespaces++}/`;
const open = (namespace: string, opts: Partial<EtcdStoreOptions> = {}) => new EtcdStore({ endpoints: [etcd.endpoint], namespace, ...opts });

clusterStoreContract('EtcdStore', async () => open(newNamespace()));

/** A watch whose events pile up in `seen`, and a wait for the nth. */
function watching(store: ClusterStore, prefix: string, fromRevision: number) {
  const seen: Array<{ type: string; key: string; value?: string; prev?: string; revision: number }> = [];
  const errors: Error[] = [];
  const watch = store.watch(
    prefix,
    fromRevision,
    (events: WatchEvent[], revision: number) => {
      for (const e of events) seen.push({ type: e.type, key: e.kv.key, ...(e.type === 'put' ? { value: text(e.kv.value) } : {}), ...(e.prev ? { prev: text(e.prev.value) } : {}), revision });
    },
    (err) => errors.push(err),
  );
  return {
    seen,
    errors,
    cancel: () => watch.cancel(),
    async until(count: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (seen.length < count) {
        if (errors.length > 0) throw errors[0];
        if (Date.now() > deadline) throw new Error(`only ${seen.length} of ${count} events: ${JSON.stringify(seen)}`);
        await sleep(20);
      }
      return seen;
    },
  };
}

describe('EtcdStore on a shared etcd', () => {
  it('shows one client what another wrote, and settles their race on a key by its modification revision', async () => {
    const namespace = newNamespace();
    const a = open(namespace);
    const b = open(namespace);
    try {
      const { revision: start } = await b.range('/');
      const w = watching(b, '/obj/', start + 1);
      const created = await a.txn([{ key: '/obj/1', modRevision: 0 }], [{ put: { key: '/obj/1', value: bytes('v1') } }]);
      assert.equal(created.succeeded, true);
      const read = await b.get('/obj/1');
      assert.deepEqual([text(read?.value), read?.modRevision], ['v1', created.revision]);
      // both update from what they read: the first wins, the second takes its failure branch
      const fromA = await a.txn([{ key: '/obj/1', modRevision: read!.modRevision }], [{ put: { key: '/obj/1', value: bytes('by a') } }]);
      const fromB = await b.txn([{ key: '/obj/1', modRevision: read!.modRevision }], [{ put: { key: '/obj/1', value: bytes('by b') } }]);
      assert.deepEqual([fromA.succeeded, fromB.succeeded], [true, false]);
      assert.equal(fromB.revision, fromA.revision);
      assert.deepEqual(await w.until(2), [
        { type: 'put', key: '/obj/1', value: 'v1', revision: created.revision },
        { type: 'put', key: '/obj/1', value: 'by a', prev: 'v1', revision: fromA.revision },
      ]);
      w.cancel();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('deletes the keys of a lease its holder stops keeping alive, for every client', async () => {
    const namespace = newNamespace();
    const holder = open(namespace);
    const other = open(namespace);
    try {
      const lease = await holder.grantLease(1000);
      const { revision } = await holder.txn([], [{ put: { key: '/nodes/n1', value: bytes('up'), lease } }]);
      assert.equal((await other.get('/nodes/n1'))?.lease, lease);
      const w = watching(other, '/nodes/', revision + 1);
      // etcd's shortest TTL with its default timings is 2 s; it checks for expired leases twice a second
      assert.deepEqual(
        (await w.until(1, 8000)).map((e) => [e.type, e.key, e.prev]),
        [['delete', '/nodes/n1', 'up']],
      );
      assert.equal(await other.get('/nodes/n1'), undefined);
      await assert.rejects(holder.keepAlive(lease), LeaseNotFoundError);
      await assert.rejects(other.revokeLease(lease), LeaseNotFoundError);
      w.cancel();
    } finally {
      await Promise.all([holder.close(), other.close()]);
    }
  });

  it('keeps namespaces apart, in ranges, prefix deletes and watches, and puts them in front of the keys in etcd', async () => {
    const first = newNamespace();
    const second = newNamespace();
    const one = open(first);
    const two = open(second);
    const whole = open('');
    try {
      const { revision } = await whole.range('');
      const w = watching(one, '', revision + 1);
      await one.txn([], [{ put: { key: 'k', value: bytes('1') } }]);
      await two.txn([], [{ put: { key: 'k', value: bytes('2') } }]);
      await two.txn([], [{ deletePrefix: { prefix: '' } }]);
      const last = await one.txn([], [{ put: { key: 'k', value: bytes('3') } }]);
      assert.deepEqual(
        (await one.range('')).kvs.map((kv) => [kv.key, text(kv.value)]),
        [['k', '3']],
      );
      assert.deepEqual((await two.range('')).kvs, []);
      assert.equal(text((await whole.get(`${first}k`))?.value), '3');
      assert.deepEqual(
        (await w.until(2)).map((e) => [e.key, e.value, e.revision]),
        [
          ['k', '1', revision + 1],
          ['k', '3', last.revision],
        ],
      );
      w.cancel();
    } finally {
      await Promise.all([one.close(), two.close(), whole.close()]);
    }
  });

  it('ends its watches with the store, and refuses calls after close', async () => {
    const namespace = newNamespace();
    const store = open(namespace);
    const writer = open(namespace);
    try {
      const { revision } = await store.range('');
      const w = watching(store, '', revision + 1);
      await writer.txn([], [{ put: { key: 'k', value: bytes('1') } }]);
      await w.until(1);
      await store.close();
      await writer.txn([], [{ put: { key: 'k', value: bytes('2') } }]);
      await sleep(300);
      assert.deepEqual([w.seen.length, w.errors], [1, []]);
      assert.throws(() => store.watch('', 0, () => undefined), /closed/);
      await assert.rejects(store.get('k'), /closed/);
    } finally {
      await Promise.all([store.close(), writer.close()]);
    }
  });
});

describe('EtcdStore across an etcd restart', () => {
  let own: Etcd;
  before(async () => {
    own = await startEtcd();
  });
  after(() => own?.close());

  it('answers again once etcd is back, and resumes a watch after the revision it delivered last: nothing lost, nothing twice', async () => {
    const watcher = new EtcdStore({ endpoints: [own.endpoint], namespace: '/restart/' });
    try {
      const { revision: first } = await watcher.txn([], [{ put: { key: '/a', value: bytes('1') } }]);
      const w = watching(watcher, '/', first);
      // and one from now, resumed from the revision it was made at (not from whenever it reconnects)
      const fromNow = watching(watcher, '/', 0);
      await w.until(1);
      await sleep(200);
      await own.stop();
      await assert.rejects(watcher.get('/a'), /UNAVAILABLE/);
      await own.start();
      // the same client answers again at once (no circuit breaker over a single member)
      const { revision: second } = await watcher.txn([], [{ put: { key: '/a', value: bytes('2') } }]);
      assert.deepEqual(await w.until(2, 15_000), [
        { type: 'put', key: '/a', value: '1', revision: first },
        { type: 'put', key: '/a', value: '2', prev: '1', revision: second },
      ]);
      assert.deepEqual(await fromNow.until(1, 15_000), [{ type: 'put', key: '/a', value: '2', prev: '1', revision: second }]);
      await sleep(300);
      assert.deepEqual([w.seen.length, fromNow.seen.length], [2, 1]);
      w.cancel();
      fromNow.cancel();
    } finally {
      await watcher.close();
    }
  });
});

describe('EtcdStore over mutual TLS', () => {
  let secure: Etcd;
  let certs: string;
  let fixtures: TlsFixtures;
  before(async () => {
    certs = mkdtempSync(path.join(os.tmpdir(), 'berth-etcd-tls-'));
    fixtures = makeTlsFixtures(certs);
    secure = await startEtcd({ tls: fixtures });
  });
  after(async () => {
    await secure?.close();
    rmSync(certs, { recursive: true, force: true });
  });

  it('works with a client certificate the CA signed', async () => {
    const store = new EtcdStore({ endpoints: [secure.endpoint], tls: secure.clientTls, namespace: '/tls/' });
    try {
      const { revision } = await store.txn([], [{ put: { key: '/k', value: bytes('v') } }]);
      const w = watching(store, '/', revision);
      assert.equal(text((await store.get('/k'))?.value), 'v');
      assert.deepEqual(await w.until(1), [{ type: 'put', key: '/k', value: 'v', revision }]);
      w.cancel();
    } finally {
      await store.close();
    }
  });

  it('is refused without a client certificate or with one another CA signed, and takes no http endpoint with TLS options', async () => {
    const ca = secure.clientTls!.ca;
    for (const tls of [{ ca }, { ca, cert: readFileSync(fixtures.rogueClientCert), key: readFileSync(fixtures.rogueClientKey) }]) {
      const store = new EtcdStore({ endpoints: [secure.endpoint], tls, namespace: '/tls/', callTimeoutMs: 3000 });
      try {
        await assert.rejects(store.get('/k'), /bad certificate/);
      } finally {
        await store.close();
      }
    }
    assert.throws(() => new EtcdStore({ endpoints: [secure.endpoint.replace('https:', 'http:')], tls: secure.clientTls }), /https/);
  });
});
