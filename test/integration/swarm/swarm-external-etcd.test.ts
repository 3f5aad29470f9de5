// A swarm kept in an etcd of the operator's (--swarm-etcd-endpoint and its TLS files), as the
// issue allows instead of the managers' own members: a real etcd 3.4 over mutual TLS in the first
// node's namespace, on its underlay address; both managers keep the swarm there under the prefix
// given, run no etcd of their own, and answer dockerd's no-leader 500 while it is gone.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { tempDir } from '../../helpers/berthd.js';
import { spawnIn } from '../../helpers/netns.js';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { makeNodeCert, makeTlsFixtures, type TlsFixtures } from '../../helpers/tls.js';
import { until } from '../../helpers/until.js';

const PREFIX = '/test-swarm';
const CLIENT_PORT = 23790;

/** Node's script: POSTs argv[2] (JSON) to etcd's HTTP gateway at argv[1] with the TLS files argv[3..5]; prints the answer. */
const GATEWAY = `
const https = require('node:https');
const { readFileSync } = require('node:fs');
const [url, body, ca, cert, key] = process.argv.slice(1);
const req = https.request(url, { method: 'POST', ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key), timeout: 2000 }, (res) => {
  let b = '';
  res.on('data', (d) => (b += d));
  res.on('end', () => process.stdout.write(b));
});
req.on('error', () => process.exit(1));
req.on('timeout', () => req.destroy());
req.end(body);
`;

async function cli(node: SwarmNode, args: string[]): Promise<string> {
  const r = await node.docker(args);
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

describe("a swarm kept in an etcd of the operator's", () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  let n2: SwarmNode;
  let tls: TlsFixtures;
  let etcd: ChildProcess | undefined;
  let url: string;

  /** etcd's v3 API through its HTTP gateway, from inside n1's namespace */
  const gateway = (api: string, body: unknown): unknown => JSON.parse(n1.exec(process.execPath, ['-e', GATEWAY, `${url}${api}`, JSON.stringify(body), tls.ca, tls.clientCert, tls.clientKey]));
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const keysUnder = (prefix: string): Array<{ key: string; value: string }> => {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const res = gateway('/v3/kv/range', { key: b64(prefix), range_end: b64(end) }) as { kvs?: Array<{ key: string; value: string }> };
    return (res.kvs ?? []).map((kv) => ({ key: Buffer.from(kv.key, 'base64').toString(), value: Buffer.from(kv.value, 'base64').toString() }));
  };

  async function startEtcd(dataDir: string): Promise<void> {
    const server = makeNodeCert(tls, `etcd-${Date.now()}`, 'manager', n1.addr);
    etcd = spawnIn(n1.netns, 'etcd', [
      ...['--name', 'operator', '--data-dir', dataDir],
      ...['--listen-client-urls', url, '--advertise-client-urls', url],
      ...['--listen-peer-urls', 'http://127.0.0.1:23800', '--initial-advertise-peer-urls', 'http://127.0.0.1:23800', '--initial-cluster', 'operator=http://127.0.0.1:23800'],
      ...['--cert-file', server.cert, '--key-file', server.key, '--trusted-ca-file', tls.ca, '--client-cert-auth'],
      ...['--logger', 'zap', '--log-outputs', 'stderr'],
    ]);
    await until('the operator’s etcd answering', () => {
      try {
        return gateway('/v3/maintenance/status', {}) as { leader?: string };
      } catch {
        return {};
      }
    }, (status) => status.leader !== undefined, 20_000);
  }

  before(async () => {
    swarm = await startSwarmNodes(2);
    [n1, n2] = swarm.nodes as [SwarmNode, SwarmNode];
    tls = makeTlsFixtures(tempDir('berth-swarm-etcd-tls-'));
    url = `https://${n1.addr}:${CLIENT_PORT}`;
    await startEtcd(path.join(tempDir('berth-operator-etcd-'), 'data'));
    const flags = ['--swarm-etcd-endpoint', url, '--swarm-etcd-cacert', tls.ca, '--swarm-etcd-cert', tls.clientCert, '--swarm-etcd-key', tls.clientKey, '--swarm-etcd-prefix', PREFIX];
    for (const n of [n1, n2]) await n.restart({ args: flags });
  });
  after(async () => {
    await swarm?.close();
  });

  it('keeps the swarm there, under its prefix, and runs no member of its own', async () => {
    await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    const kvs = keysUnder(`${PREFIX}/`);
    const keys = kvs.map((kv) => kv.key);
    assert.ok(keys.includes(`${PREFIX}/cluster`), keys.join(' '));
    assert.ok(keys.some((k) => k.startsWith(`${PREFIX}/nodes/`)), keys.join(' '));
    // the root CA's key is in there encrypted with the managers' data key
    assert.doesNotMatch(kvs.find((kv) => kv.key === `${PREFIX}/cluster`)!.value, /PRIVATE KEY/);
    for (const dir of ['etcd', 'store']) assert.equal(existsSync(path.join(n1.dataRoot, 'swarm', dir)), false, dir);
  });

  it('takes a second manager that uses it as it is, and keeps the swarm over a restart', async () => {
    const token = (await cli(n1, ['swarm', 'join-token', '-q', 'manager'])).trim();
    assert.match(await cli(n2, ['swarm', 'join', '--token', token, '--advertise-addr', n2.addr, `${n1.addr}:2377`]), /This node joined a swarm as a manager\./);
    const ls = await until('both managers reachable on n2', () => n2.request('GET', '/nodes').then((r) => (r.status === 200 ? (r.json() as Array<{ ManagerStatus?: { Reachability: string } }>) : [])), (l) => l.length === 2 && l.every((n) => n.ManagerStatus?.Reachability === 'reachable'), 30_000);
    assert.equal(ls.length, 2);
    assert.equal(existsSync(path.join(n2.dataRoot, 'swarm', 'etcd')), false);
    const id = ((await n1.request('GET', '/swarm')).json() as { ID: string }).ID;
    await n1.restart();
    assert.equal(((await n1.request('GET', '/swarm')).json() as { ID: string }).ID, id);
  });

  it("answers dockerd's no-leader 500 while the etcd is gone, and serves once it is back", async () => {
    const dataDir = etcd!.spawnargs[etcd!.spawnargs.indexOf('--data-dir') + 1]!;
    etcd!.kill('SIGKILL');
    const res = await until('the managers to find no leader', () => n2.request('GET', '/nodes'), (r) => r.status === 500, 20_000);
    assert.match((res.json() as { message: string }).message, /The swarm does not have a leader/);
    await startEtcd(dataDir);
    await until('the swarm served again', () => n2.request('GET', '/nodes').then((r) => r.status), (s) => s === 200, 30_000);
  });
});
