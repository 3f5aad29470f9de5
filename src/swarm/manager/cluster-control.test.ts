// The swarm object's calls: the version query as dockerd 20.10 parses it (strconv.ParseUint(v,
// 10, 64), cluster_routes.go), unlock keys as swarmkit prints them, and inspect and update on a
// real LocalStore, with a real swarmkit root CA and join secret so that the tokens shown are
// checked against the ones a dockerd showed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { TRUST_ROOT, WORKER_TOKEN, CERT_ISSUER_PUBLIC_KEY, CERT_ISSUER_SUBJECT } from '../ca/dockerd-swarm.fixture.js';
import { parseJoinToken } from '../ca/join-token.js';
import { ClusterState } from '../cluster/cluster-state.js';
import type { ClusterRecord, NodeRecord } from '../cluster/records.js';
import { defaultSwarmSpec } from '../cluster/swarm-spec.js';
import { LocalStore } from '../store/local-store.js';
import { inspectSwarm, newUnlockKey, parseVersion, unlockKeyOf, updateSwarm } from './cluster-control.js';
import { newDataKey } from '../ca/sealing.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-cluster-control-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;

function invalidVersion(kind: string, text: string | null, reason: string): void {
  const v = text ?? '';
  assert.throws(() => parseVersion(kind, text), (err: unknown) => {
    assert.equal((err as Error).message, `invalid ${kind} version '${v}': strconv.ParseUint: parsing "${v}": ${reason}`);
    assert.equal((err as { kind: string }).kind, 'invalidParameter');
    return true;
  });
}

describe('parseVersion', () => {
  it('reads a decimal version', () => {
    assert.equal(parseVersion('swarm', '0'), 0);
    assert.equal(parseVersion('swarm', '42'), 42);
    assert.equal(parseVersion('node', '007'), 7);
  });

  it("refuses what is no unsigned decimal, in strconv.ParseUint's words", () => {
    for (const text of [null, '', 'abc', '-1', '+1', ' 1', '1 ', '1.0', '0x10', '1_000']) invalidVersion('swarm', text, 'invalid syntax');
    invalidVersion('node', 'abc', 'invalid syntax');
  });

  it('takes any version a uint64 holds (one beyond every revision), and refuses more as out of range', () => {
    assert.ok(parseVersion('swarm', '9007199254740993') > Number.MAX_SAFE_INTEGER);
    assert.ok(parseVersion('swarm', '18446744073709551615') > Number.MAX_SAFE_INTEGER);
    invalidVersion('swarm', '18446744073709551616', 'value out of range');
    invalidVersion('node', '99999999999999999999999', 'value out of range');
  });
});

describe('newUnlockKey', () => {
  it("is swarmkit's SWMKEY-1- and 32 random bytes in unpadded base64, new each time", () => {
    const keys = new Set(Array.from({ length: 50 }, () => newUnlockKey()));
    assert.equal(keys.size, 50);
    for (const key of keys) {
      assert.match(key, /^SWMKEY-1-[A-Za-z0-9+/]{43}$/);
      assert.equal(Buffer.from(key.slice('SWMKEY-1-'.length), 'base64').length, 32);
    }
  });
});

const DEK = newDataKey();

describe('inspectSwarm and updateSwarm on a LocalStore', () => {
  const realSecret = parseJoinToken(WORKER_TOKEN).secret;

  async function swarm(): Promise<{ state: ClusterState; store: LocalStore }> {
    const store = await LocalStore.open(path.join(scratch, `store-${dirs++}`));
    const state = new ClusterState(store);
    const at = '2026-11-26T07:47:00.000000000Z';
    const cluster: ClusterRecord = {
      id: 'ydmfn1q2mzu4bf2f2scjnzpnw',
      createdAt: at,
      updatedAt: at,
      spec: defaultSwarmSpec(),
      // the real CA's key stays with the real swarm: inspect and update never use it
      rootCa: { certPem: TRUST_ROOT, encryptedKey: '' },
      joinSecrets: { worker: realSecret, manager: 'managersecret000000000000' },
      encryptedUnlockKey: '',
      dataPathPort: 4789,
      defaultAddrPool: ['10.0.0.0/8'],
      subnetSize: 24,
    };
    const node: NodeRecord = {
      id: 'manager0000000000000000000',
      createdAt: at,
      updatedAt: at,
      spec: { name: '', labels: {}, role: 'manager', availability: 'active' },
      role: 'manager',
      description: { hostname: 'm1', platform: { architecture: 'x86_64', os: 'linux' }, resources: { nanoCpus: 2e9, memoryBytes: 2 ** 31 }, engine: { engineVersion: '20.10.27', labels: {}, plugins: [] } },
      status: { state: 'ready', message: '', addr: '10.0.0.1' },
    };
    await state.create(cluster, node);
    return { state, store };
  }

  it("shows the swarm's tokens and TLSInfo as the real swarm did", async () => {
    const { state, store } = await swarm();
    try {
      const view = await inspectSwarm(state);
      assert.equal(view.joinTokens.worker, WORKER_TOKEN);
      assert.equal(view.joinTokens.manager, `${WORKER_TOKEN.slice(0, -25)}managersecret000000000000`);
      assert.deepEqual(view.tlsInfo, { trustRoot: TRUST_ROOT, issuerSubject: CERT_ISSUER_SUBJECT, issuerPublicKey: CERT_ISSUER_PUBLIC_KEY });
      assert.equal(view.cluster.value.id, 'ydmfn1q2mzu4bf2f2scjnzpnw');
    } finally {
      await store.close();
    }
  });

  it('replaces the spec at the version read, rotates what it is asked to, and refuses a stale version', async () => {
    const { state, store } = await swarm();
    try {
      const before = await inspectSwarm(state);
      await updateSwarm(state, before.cluster.version, { Labels: { x: 'y' } }, { workerToken: true, managerToken: false, unlockKey: false }, DEK);
      const after = await inspectSwarm(state);
      assert.ok(after.cluster.version > before.cluster.version);
      assert.deepEqual(after.cluster.value.spec.labels, { x: 'y' });
      assert.equal(after.cluster.value.spec.taskHistoryRetentionLimit, 0);
      assert.notEqual(after.joinTokens.worker, WORKER_TOKEN);
      // the CA is the same: only the secret changed
      assert.equal(after.joinTokens.worker.slice(0, -25), WORKER_TOKEN.slice(0, -25));
      assert.equal(after.joinTokens.manager, before.joinTokens.manager);

      await assert.rejects(updateSwarm(state, before.cluster.version, {}, { workerToken: false, managerToken: false, unlockKey: false }, DEK), (err: Error & { kind: string }) => {
        assert.equal(err.message, 'rpc error: code = Unknown desc = update out of sequence');
        assert.equal(err.kind, 'system');
        return true;
      });
    } finally {
      await store.close();
    }
  });

  it('makes an unlock key when autolock comes on, keeps it, rotates it on demand, and drops it when autolock goes off', async () => {
    const { state, store } = await swarm();
    const none = { workerToken: false, managerToken: false, unlockKey: false };
    const update = async (autoLock: boolean, rotate = none) => updateSwarm(state, (await state.cluster()).version, { EncryptionConfig: { AutoLockManagers: autoLock } }, rotate, DEK);
    try {
      await update(true);
      const key = await unlockKeyOf(state, DEK);
      assert.match(key, /^SWMKEY-1-[A-Za-z0-9+/]{43}$/);
      // kept encrypted with the data key
      assert.doesNotMatch((await state.cluster()).value.encryptedUnlockKey, /SWMKEY/);
      await update(true);
      assert.equal(await unlockKeyOf(state, DEK), key);
      await update(true, { ...none, unlockKey: true });
      assert.notEqual(await unlockKeyOf(state, DEK), key);
      await update(false);
      assert.equal(await unlockKeyOf(state, DEK), '');
    } finally {
      await store.close();
    }
  });
});
