// EtcdMembership over real members (EtcdMember, test/helpers/etcd-members.ts), each manager on its
// own loopback address: a cluster grown from one member to three (each added as a learner, started
// as 'existing', promoted), a join undone, a member removed (it stops and stays stopped), a new leader after kill -9 of the old one, and a
// survivor without a quorum whose calls fail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestManagers, type TestManager } from '../../../test/helpers/etcd-members.js';
import { makeNodeCert } from '../../../test/helpers/tls.js';
import { until } from '../../../test/helpers/until.js';
import type { EtcdMember } from '../../runtime/etcd-member.js';
import { EtcdMembership } from './etcd-membership.js';
import { EtcdStore } from './etcd-store.js';

const bytes = (s: string) => Buffer.from(s);
const text = (v: Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v).toString());
const sorted = (cluster: string) => cluster.split(',').sort().join(',');

/** The error `call` fails with, and how long it took to. */
async function failure(call: Promise<unknown>): Promise<{ err: Error; ms: number }> {
  const start = Date.now();
  try {
    await call;
  } catch (err) {
    return { err: err as Error, ms: Date.now() - start };
  }
  throw new Error('the call succeeded');
}

describe('EtcdMembership', () => {
  let managers: TestManagers;
  const m: Record<string, TestManager> = {};
  const members: Record<string, EtcdMember> = {};
  /** asks m1 */
  let membership: EtcdMembership;
  const store = (names: string[], callTimeoutMs?: number) => new EtcdStore({ endpoints: names.map((n) => m[n].clientUrl), tls: m[names[0]].clientTls, namespace: '/membership-test/', callTimeoutMs });
  const join = async (name: string) => {
    const { id, initialCluster } = await membership.add(name, m[name].peerUrl);
    members[name] = managers.member(m[name], initialCluster, 'existing');
    await members[name].start();
    await membership.promote(id);
    return { id, initialCluster };
  };

  before(async () => {
    managers = new TestManagers();
    for (const n of [1, 2, 3, 4, 5]) m[`m${n}`] = await managers.manager(n);
    members.m1 = managers.member(m.m1, `m1=${m.m1.peerUrl}`, 'new');
    await members.m1.start();
    membership = new EtcdMembership({ endpoints: [m.m1.clientUrl], tls: m.m1.clientTls });
  });
  after(async () => {
    membership?.close();
    await managers?.close();
  });

  it('grows a cluster of one to three: each member added as a learner, started to join, then promoted', async () => {
    const s1 = store(['m1']);
    await s1.txn([], [{ put: { key: 'k', value: bytes('before') } }]);
    await s1.close();

    const { id, initialCluster } = await membership.add('m2', m.m2.peerUrl);
    assert.equal(sorted(initialCluster), sorted(`m1=${m.m1.peerUrl},m2=${m.m2.peerUrl}`));
    // added as a learner, not yet started: no name, no client URL, and no change to the quorum
    assert.deepEqual(
      (await membership.list()).find((x) => x.id === id),
      { id, name: '', peerUrls: [m.m2.peerUrl], clientUrls: [], started: false, learner: true },
    );
    assert.notEqual(await membership.leader(), undefined);
    members.m2 = managers.member(m.m2, initialCluster, 'existing');
    await members.m2.start();
    await membership.promote(id);
    // the next add waits out etcd's 5 s of connection to the new member
    const third = await join('m3');
    assert.equal(sorted(third.initialCluster), sorted(`m1=${m.m1.peerUrl},m2=${m.m2.peerUrl},m3=${m.m3.peerUrl}`));

    const list = await membership.list();
    assert.deepEqual(
      list.map((x) => [x.name, x.peerUrls, x.clientUrls, x.started, x.learner]).sort(),
      ['m1', 'm2', 'm3'].map((n) => [n, [m[n].peerUrl], [m[n].clientUrl], true, false]),
    );
    assert.ok(list.every((x) => /^\d+$/.test(x.id)));
    const s3 = store(['m3']);
    try {
      assert.equal(text((await s3.get('k'))?.value), 'before');
    } finally {
      await s3.close();
    }
  });

  it('takes back a join whose member cannot run: a worker certificate from the swarm CA is refused as a peer', async () => {
    const { id, initialCluster } = await membership.add('m5', m.m5.peerUrl);
    const worker = makeNodeCert(managers.fixtures, 'w5', 'worker', '127.0.0.5');
    const refused = managers.member({ ...m.m5, certFile: worker.cert, keyFile: worker.key }, initialCluster, 'existing');
    await assert.rejects(refused.start(), /exited before it was healthy[\s\S]*bad certificate/);
    await refused.stop();
    assert.match(members.m1.recentOutput, /"dns-names":\["swarm-worker","w5"\],"error":"client certificate authentication failed"/);
    await membership.remove(id);
    assert.deepEqual((await membership.list()).map((x) => x.name).sort(), ['m1', 'm2', 'm3']);
  });

  it('removes a member, which stops and is not started again', async () => {
    const { id } = (await membership.list()).find((x) => x.name === 'm3')!;
    await membership.remove(id);
    assert.deepEqual((await membership.list()).map((x) => x.name).sort(), ['m1', 'm2']);
    await until('the removed member to stop', () => members.m3.pid, (pid) => pid === undefined);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(members.m3.pid, undefined);
    assert.match(members.m3.recentOutput, /the member has been permanently removed from the cluster/);
  });

  it('after kill -9 of the leader, the two others elect one, and a store pointed at them works within 10 s', async () => {
    await join('m4');
    const leaderId = await until('a leader', () => membership.leader(), (l) => l !== undefined);
    const leader = (await membership.list()).find((x) => x.id === leaderId)!.name;
    const others = ['m1', 'm2', 'm4'].filter((n) => n !== leader);
    process.kill(members[leader].pid!, 'SIGKILL');
    // kept down: its supervisor would have it back in 100 ms
    await members[leader].stop();
    // a write sent before the election is over is lost with the old leader, and etcd answers it
    // only after its request timeout (7 s): tries of 2 s each
    const s = store(others, 2000);
    try {
      await until(
        'a write through the two others',
        () => s.txn([], [{ put: { key: 'k', value: bytes('after') } }]).then(() => true, () => false),
        (ok) => ok,
        10_000,
      );
      assert.equal(text((await s.get('k'))?.value), 'after');
    } finally {
      await s.close();
    }
    await members[leader].start();
  });

  it('with two of three members stopped, the survivor has no leader, and its calls fail', async () => {
    // m1 survives: the membership asks it
    await Promise.all([members.m2.stop(), members.m4.stop()]);
    const survivor = store(['m1']);
    const stopped = store(['m2']);
    try {
      await until('the survivor to see no leader', () => membership.leader(), (l) => l === undefined);
      // a read and a write each wait etcd's request timeout (7 s) for a leader
      const read = await failure(survivor.get('k'));
      assert.match(read.err.message, /UNAVAILABLE: etcdserver: request timed out/);
      const write = await failure(survivor.txn([], [{ put: { key: 'k', value: bytes('lost') } }]));
      assert.match(write.err.message, /UNKNOWN: context deadline exceeded/);
      // the member list is the survivor's own view
      assert.equal((await membership.list()).length, 3);
      const down = await failure(stopped.get('k'));
      assert.match(down.err.message, /UNAVAILABLE: No connection established/);

      // and once one is back, the cluster answers again
      await members.m2.start();
      assert.equal(text((await survivor.get('k'))?.value), 'after');
    } finally {
      await Promise.all([survivor.close(), stopped.close()]);
    }
  });
});
