// EtcdMember against Debian's etcd: one member on loopback with a manager certificate like the
// swarm CA's (test/helpers/etcd-members.ts), serving an EtcdStore over mutual TLS, refusing other
// certificates, restarted when it dies, stopped without a trace, and dying with the process that
// started it; a start that fails says why in etcd's words.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { alive, ALLOWED_HOSTNAME, TestManagers, type TestManager } from '../../test/helpers/etcd-members.js';
import { makeNodeCert } from '../../test/helpers/tls.js';
import { until } from '../../test/helpers/until.js';
import { EtcdStore, type EtcdStoreOptions } from '../swarm/store/etcd-store.js';
import type { EtcdMember } from './etcd-member.js';

const CHILD = fileURLToPath(new URL('../../test/helpers/etcd-member-child.js', import.meta.url));
const bytes = (s: string) => Buffer.from(s);
const text = (v: Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v).toString());

async function firstLine(input: Readable): Promise<string | undefined> {
  for await (const line of createInterface({ input })) return line;
  return undefined;
}

describe('EtcdMember', () => {
  let managers: TestManagers;
  let m1: TestManager;
  let member: EtcdMember;
  before(async () => {
    managers = new TestManagers();
    m1 = await managers.manager(1);
    member = managers.member(m1, `m1=${m1.peerUrl}`, 'new');
    await member.start();
  });
  after(() => managers?.close());

  const store = (tls: EtcdStoreOptions['tls'] = m1.clientTls, callTimeoutMs?: number) => new EtcdStore({ endpoints: [m1.clientUrl], tls, namespace: '/member-test/', callTimeoutMs });

  it('serves an EtcdStore over mutual TLS to a manager certificate from the swarm CA', async () => {
    const s = store();
    try {
      await s.txn([], [{ put: { key: 'k', value: bytes('v') } }]);
      assert.equal(text((await s.get('k'))?.value), 'v');
    } finally {
      await s.close();
    }
  });

  it('refuses clients without a certificate, with one from another CA, and with a worker certificate from the swarm CA', async () => {
    const { fixtures } = managers;
    const worker = makeNodeCert(fixtures, 'w1', 'worker', '127.0.0.1');
    const ca = m1.clientTls.ca;
    const refused = [
      { ca },
      { ca, cert: readFileSync(fixtures.rogueClientCert), key: readFileSync(fixtures.rogueClientKey) },
      { ca, cert: readFileSync(worker.cert), key: readFileSync(worker.key) },
    ];
    for (const tls of refused) {
      const s = store(tls, 3000);
      try {
        await assert.rejects(s.get('k'), /bad certificate/);
      } finally {
        await s.close();
      }
    }
    // each for its own reason, in etcd's words; etcd logs a refusal as it answers it, so the last
    // line may come a moment after the client's error
    const logged = [/client didn't provide a certificate/, /certificate signed by unknown authority/, /"dns-names":\["swarm-worker","w1"\],"error":"client certificate authentication failed"/];
    const recentOutput = await until('etcd to log the three refusals', async () => member.recentOutput, (out) => logged.every((re) => re.test(out)), 10_000);
    assert.match(recentOutput, /client didn't provide a certificate/);
    assert.match(recentOutput, /certificate signed by unknown authority/);
    assert.match(recentOutput, /"dns-names":\["swarm-worker","w1"\],"error":"client certificate authentication failed"/);
  });

  it('restarts etcd that died, on the same data', async () => {
    const first = member.pid!;
    process.kill(first, 'SIGKILL');
    const s = store();
    try {
      const value = await until(
        'the restarted member to answer',
        async () => text((await s.get('k').catch(() => undefined))?.value),
        (v) => v === 'v',
      );
      assert.equal(value, 'v');
      assert.notEqual(member.pid, first);
      assert.equal(alive(first), false);
    } finally {
      await s.close();
    }
  });

  it('stops without leaving a process, and starts again on its data', async () => {
    const pid = member.pid!;
    await member.stop();
    assert.equal(member.pid, undefined);
    assert.equal(alive(pid), false);
    await member.start();
    const s = store();
    try {
      assert.equal(text((await s.get('k'))?.value), 'v');
    } finally {
      await s.close();
    }
  });

  it('rejects a start with etcd\'s own words when etcd exits (a port taken), and stays supervised until stopped', async () => {
    const m2 = await managers.manager(2);
    const port = Number(new URL(m2.clientUrl).port);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.2', resolve));
    const failing = managers.member(m2, `m2=${m2.peerUrl}`, 'new');
    try {
      await assert.rejects(failing.start(), /exited before it was healthy[\s\S]*address already in use/);
      await assert.rejects(failing.start(), /already started/);
    } finally {
      await failing.stop();
      squatter.close();
    }
    assert.equal(failing.pid, undefined);
  });

  it('dies with the process that started it (berthd killed with -9), and comes back on its data under the next', async () => {
    const m3 = await managers.manager(3);
    const opts = {
      name: m3.name,
      dataDir: `${managers.dir}/${m3.name}`,
      clientUrl: m3.clientUrl,
      peerUrl: m3.peerUrl,
      tls: { ca: managers.fixtures.ca, cert: m3.certFile, key: m3.keyFile, allowedHostname: ALLOWED_HOSTNAME },
      initialCluster: `m3=${m3.peerUrl}`,
      initialClusterState: 'new',
    };
    const berthd = async () => {
      const child = spawn(process.execPath, [CHILD, JSON.stringify(opts)], { stdio: ['ignore', 'pipe', 'inherit'] });
      const started = JSON.parse((await firstLine(child.stdout)) ?? '{"error":"it exited"}') as { pid?: number; error?: string };
      if (started.pid === undefined) {
        child.kill('SIGKILL');
        throw new Error(`the member did not start: ${started.error}`);
      }
      return { child, etcdPid: started.pid };
    };
    const s = new EtcdStore({ endpoints: [m3.clientUrl], tls: m3.clientTls });
    const first = await berthd();
    try {
      await s.txn([], [{ put: { key: 'k', value: bytes('kept') } }]);
      first.child.kill('SIGKILL');
      await until('etcd to die with its parent', () => alive(first.etcdPid), (a) => !a);
      const second = await berthd();
      try {
        assert.equal(text((await s.get('k'))?.value), 'kept');
      } finally {
        second.child.kill('SIGKILL');
        await until('etcd to die with its parent', () => alive(second.etcdPid), (a) => !a);
      }
    } finally {
      first.child.kill('SIGKILL');
      await s.close();
    }
  });
});
