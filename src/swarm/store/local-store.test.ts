import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { clusterStoreContract } from './cluster-store.case.js';
import { LocalStore } from './local-store.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-local-store-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(scratch, `store-${dirs++}`);
const bytes = (s: string) => Buffer.from(s);
const text = (v: Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v).toString());

clusterStoreContract('LocalStore', () => LocalStore.open(newDir()));

describe('LocalStore on disk', () => {
  it('comes back after a restart with its keys, revisions, history and leases', async () => {
    const dir = newDir();
    const first = await LocalStore.open(dir);
    const lease = await first.grantLease(60_000);
    const { revision: r1 } = await first.txn([], [{ put: { key: '/a', value: bytes('1') } }, { put: { key: '/leased', value: bytes('l'), lease } }]);
    await first.txn([], [{ put: { key: '/a', value: bytes('2') } }]);
    await first.close();

    const second = await LocalStore.open(dir);
    try {
      const a = await second.get('/a');
      assert.deepEqual([text(a?.value), a?.createRevision, a?.modRevision, a?.version], ['2', r1, r1 + 1, 2]);
      assert.equal((await second.get('/leased'))?.lease, lease);
      assert.equal(text((await second.range('/a', { revision: r1 })).kvs[0]?.value), '1');
      // revisions go on from where they were
      assert.equal((await second.txn([], [{ put: { key: '/b', value: bytes('b') } }])).revision, r1 + 2);
      await second.revokeLease(lease);
      assert.equal(await second.get('/leased'), undefined);
    } finally {
      await second.close();
    }
  });

  it('cuts off a torn or damaged tail, which was never answered, and goes on writing after it', async () => {
    const dir = newDir();
    const first = await LocalStore.open(dir);
    await first.txn([], [{ put: { key: '/kept', value: bytes('yes') } }]);
    await first.close();
    const log = path.join(dir, 'store.log');
    const whole = statSync(log).size;
    appendFileSync(log, '0badc0de {"t":"txn","rev":99,"puts":[["/torn","eA=="]],"dels":[]}\n{"t":"tx');

    const second = await LocalStore.open(dir);
    try {
      assert.equal(statSync(log).size, whole);
      assert.equal(await second.get('/torn'), undefined);
      assert.equal(text((await second.get('/kept'))?.value), 'yes');
      await second.txn([], [{ put: { key: '/after', value: bytes('a') } }]);
    } finally {
      await second.close();
    }
    const third = await LocalStore.open(dir);
    assert.equal(text((await third.get('/after'))?.value), 'a');
    await third.close();
  });

  it('replaces its log with a snapshot as the log grows, and loses nothing by it', async () => {
    const dir = newDir();
    const store = await LocalStore.open(dir);
    // written together, these share their fdatasyncs; more lines than one log holds
    await Promise.all(Array.from({ length: 10_050 }, (_, i) => store.txn([], [{ put: { key: `/many/${String(i).padStart(5, '0')}`, value: bytes(String(i)) } }])));
    await store.close();
    assert.deepEqual(readdirSync(dir).sort(), ['store.log', 'store.snapshot']);
    assert.ok(readFileSync(path.join(dir, 'store.log'), 'utf8').split('\n').length < 10_000, 'the log started again');

    const reopened = await LocalStore.open(dir);
    try {
      const { kvs, revision } = await reopened.range('/many/');
      assert.equal(kvs.length, 10_050);
      assert.equal(text(kvs[10_049].value), '10049');
      assert.equal(revision, 10_051);
    } finally {
      await reopened.close();
    }
  });

  it('keeps every change it answered across a kill -9 in the middle of writing', async () => {
    const dir = newDir();
    const moduleUrl = new URL('./local-store.js', import.meta.url).href;
    // a writer that says each revision once its transaction has been answered
    const script = `
      const { LocalStore } = await import(${JSON.stringify(moduleUrl)});
      const store = await LocalStore.open(${JSON.stringify(dir)});
      for (let i = 0; ; i++) {
        const r = await store.txn([], [{ put: { key: '/k/' + (i % 50), value: Buffer.from(String(i)) } }]);
        process.stdout.write(r.revision + ' ' + i + '\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const answered: Array<[revision: number, i: number]> = [];
    for await (const line of createInterface({ input: child.stdout })) {
      const [revision, i] = line.split(' ').map(Number);
      answered.push([revision, i]);
      if (answered.length === 400) child.kill('SIGKILL');
    }
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));

    const store = await LocalStore.open(dir);
    try {
      const [lastRevision, lastI] = answered[answered.length - 1];
      const { revision, kvs } = await store.range('/k/');
      assert.ok(revision >= lastRevision, `revision ${revision} is behind the last answered, ${lastRevision}`);
      // each key holds its last answered value or a later one
      const last = new Map<string, number>();
      for (const [, i] of answered) last.set(`/k/${i % 50}`, i);
      for (const kv of kvs) assert.ok(Number(text(kv.value)) >= (last.get(kv.key) ?? 0), `${kv.key} went back`);
      assert.equal(kvs.length, 50);
      assert.ok(lastI >= 399);
    } finally {
      await store.close();
    }
  });
});
