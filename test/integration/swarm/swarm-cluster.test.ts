// A swarm of berthd nodes on one machine (test/helpers/swarm-nodes.ts), driven as its users drive
// Docker's: `docker swarm init`, `join` with the printed tokens, `docker node ls/update/rm`,
// token rotation, leave and rejoin; a worker cut off by iptables going Down and coming back; the
// refusals dockerd gives for bad input, in its words (checked on the reference engine), changing
// nothing; and the cluster port's own checks (certificates from the swarm's CA, manager calls for
// managers only), from inside the nodes' namespaces.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSwarmNodes, type SwarmNode, type SwarmNodes } from '../../helpers/swarm-nodes.js';
import { makeTlsFixtures } from '../../helpers/tls.js';
import { tempDir } from '../../helpers/berthd.js';
import { until } from '../../helpers/until.js';

interface NodeJson {
  ID: string;
  Version: { Index: number };
  Spec: { Labels: Record<string, string>; Role: string; Availability: string };
  Status: { State: string; Addr: string };
  ManagerStatus?: { Leader?: boolean; Reachability: string; Addr: string };
}

async function json<T>(node: SwarmNode, method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await node.request(method, urlPath, body === undefined ? {} : { json: body });
  return { status: res.status, body: (res.body === '' ? undefined : res.json()) as T };
}

async function cli(node: SwarmNode, args: string[]): Promise<string> {
  const r = await node.docker(args);
  assert.equal(r.code, 0, `docker ${args.join(' ')} on ${node.name}: ${r.stderr}`);
  return r.stdout;
}

async function nodes(node: SwarmNode): Promise<NodeJson[]> {
  return (await json<NodeJson[]>(node, 'GET', '/nodes')).body;
}

async function stateOf(manager: SwarmNode, id: string): Promise<string | undefined> {
  return (await nodes(manager)).find((n) => n.ID === id)?.Status.State;
}

/** Runs a script with node in a node's namespace and gives what it printed. */
function nodeScript(node: SwarmNode, script: string, ...args: string[]): string {
  return node.exec(process.execPath, ['--input-type=module', '-e', script, ...args]);
}

/** A call to a manager's cluster port with the given certificate files (none: no certificate); prints status and body. */
const CLUSTER_CALL = `
import https from 'node:https';
import { readFileSync } from 'node:fs';
const [addr, path, ca, cert, key] = process.argv.slice(1);
const [host, port] = addr.split(':');
const opts = { host, port: Number(port), path, method: 'POST', agent: false, servername: 'swarm-manager', ca: readFileSync(ca), rejectUnauthorized: true, headers: { 'content-type': 'application/json' } };
if (cert) Object.assign(opts, { cert: readFileSync(cert), key: readFileSync(key) });
const req = https.request(opts, (res) => { let b = ''; res.on('data', (d) => (b += d)); res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body: b }))); });
req.on('error', (e) => console.log(JSON.stringify({ error: e.code ?? e.message })));
req.end('{}');
`;

describe('a swarm of berthd nodes', () => {
  let swarm: SwarmNodes;
  let n1: SwarmNode;
  let n2: SwarmNode;
  let n3: SwarmNode;
  let workerToken: string;
  let managerId: string;

  before(async () => {
    swarm = await startSwarmNodes(3);
    [n1, n2, n3] = swarm.nodes as [SwarmNode, SwarmNode, SwarmNode];
  });
  after(async () => {
    await swarm?.close();
  });

  it('initializes on n1 as `docker swarm init` prints it', async () => {
    const out = await cli(n1, ['swarm', 'init', '--advertise-addr', n1.addr]);
    const m = /^Swarm initialized: current node \((\w{25})\) is now a manager\.\n\nTo add a worker to this swarm, run the following command:\n\n {4}docker swarm join --token (SWMTKN-1-\w{50}-\w{25}) ([\d.]+):2377\n/.exec(out);
    assert.ok(m, out);
    managerId = m[1]!;
    workerToken = m[2]!;
    assert.equal(m[3], n1.addr);
    const info = (await json<{ Swarm: Record<string, unknown> }>(n1, 'GET', '/info')).body.Swarm;
    assert.equal(info.NodeID, managerId);
    assert.equal(info.NodeAddr, n1.addr);
    assert.equal(info.LocalNodeState, 'active');
    assert.equal(info.ControlAvailable, true);
    assert.deepEqual(info.RemoteManagers, [{ NodeID: managerId, Addr: `${n1.addr}:2377` }]);
    assert.equal(info.Nodes, 1);
    assert.equal(info.Managers, 1);
  });

  it('joins n2 and n3 as workers with the printed token; `docker node ls` marks the leader and self', async () => {
    for (const n of [n2, n3]) assert.match(await cli(n, ['swarm', 'join', '--token', workerToken, `${n1.addr}:2377`]), /This node joined a swarm as a worker\./);
    const all = await until('three ready nodes', () => nodes(n1), (l) => l.length === 3 && l.every((n) => n.Status.State === 'ready'));
    assert.deepEqual(all.map((n) => n.Spec.Role).sort(), ['manager', 'worker', 'worker']);
    assert.deepEqual(all.map((n) => n.Status.Addr).sort(), [n1.addr, n2.addr, n3.addr].sort());
    const ls = (await cli(n1, ['node', 'ls', '--format', '{{.Self}} {{.Status}} {{.ManagerStatus}}'])).trim().split('\n').map((l) => l.trimEnd()).sort();
    assert.deepEqual(ls, ['false Ready', 'false Ready', 'true Ready Leader']);
    const worker = (await json<{ Swarm: Record<string, unknown> }>(n2, 'GET', '/info')).body.Swarm;
    assert.equal(worker.LocalNodeState, 'active');
    assert.equal(worker.ControlAvailable, false);
    assert.deepEqual(worker.RemoteManagers, [{ NodeID: managerId, Addr: `${n1.addr}:2377` }]);
    const onWorker = await n2.docker(['node', 'ls']);
    assert.match(onWorker.stderr, /Worker nodes can't be used to view or modify cluster state/);
  });

  it('refuses bad input with dockerd’s words and changes nothing', async () => {
    const before = await json<{ Version: { Index: number } }>(n1, 'GET', '/swarm');
    const join = (token: string) => json<{ message: string }>(n2, 'POST', '/swarm/join', { ListenAddr: '0.0.0.0:2377', RemoteAddrs: [`${n1.addr}:2377`], JoinToken: token });
    // already in a swarm: init and join both
    const again = await json<{ message: string }>(n1, 'POST', '/swarm/init', { ListenAddr: '0.0.0.0:2377', AdvertiseAddr: n1.addr });
    assert.equal(again.status, 503);
    assert.equal(again.body.message, 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.');
    assert.equal((await join(workerToken)).status, 503);
    // a spec named otherwise
    const named = await json<{ message: string }>(n1, 'POST', `/swarm/update?version=${before.body.Version.Index}`, { Name: 'other' });
    assert.deepEqual([named.status, named.body.message], [400, 'swarm spec must be named "default"']);
    const noVersion = await json<{ message: string }>(n1, 'POST', '/swarm/update', {});
    assert.deepEqual([noVersion.status, noVersion.body.message], [400, `invalid swarm version '': strconv.ParseUint: parsing "": invalid syntax`]);
    const stale = await json<{ message: string }>(n1, 'POST', `/swarm/update?version=${before.body.Version.Index - 1}`, {});
    assert.deepEqual([stale.status, stale.body.message], [500, 'rpc error: code = Unknown desc = update out of sequence']);
    assert.equal((await json<{ Version: { Index: number } }>(n1, 'GET', '/swarm')).body.Version.Index, before.body.Version.Index);

    // a node outside the swarm: n3 leaves (its node forced out at once), then tries tokens that are not this swarm's
    const n3Id = (await json<{ Swarm: { NodeID: string } }>(n3, 'GET', '/info')).body.Swarm.NodeID;
    await cli(n3, ['swarm', 'leave']);
    await cli(n1, ['node', 'rm', '--force', n3Id]);
    const joinN3 = (token: string) => json<{ message: string }>(n3, 'POST', '/swarm/join', { ListenAddr: '0.0.0.0:2377', AdvertiseAddr: n3.addr, RemoteAddrs: [`${n1.addr}:2377`], JoinToken: token });
    const garbage = await joinN3('garbage');
    assert.deepEqual([garbage.status, garbage.body.message], [500, 'invalid join token']);
    const otherCa = workerToken.replace(/^(SWMTKN-1-)(\w)/, (_m, p: string, c: string) => p + (c === '0' ? '1' : '0'));
    const mismatch = await joinN3(otherCa);
    assert.equal(mismatch.status, 500);
    assert.match(mismatch.body.message, /^remote CA does not match fingerprint\. Expected: [0-9a-f]{64}$/);
    const wrongSecret = await joinN3(workerToken.replace(/.$/, (c) => (c === '0' ? '1' : '0')));
    assert.deepEqual([wrongSecret.status, wrongSecret.body.message], [400, 'rpc error: code = InvalidArgument desc = A valid join token is necessary to join this cluster']);
    assert.equal((await json<{ Swarm: { LocalNodeState: string } }>(n3, 'GET', '/info')).body.Swarm.LocalNodeState, 'inactive');
    assert.equal((await nodes(n1)).length, 2, 'the failed joins made no node');
  });

  it('rotates the worker token: the old one is refused, the new one joins', async () => {
    const out = await cli(n1, ['swarm', 'join-token', '--rotate', 'worker']);
    assert.match(out, /Successfully rotated worker join token\./);
    const fresh = (await cli(n1, ['swarm', 'join-token', '-q', 'worker'])).trim();
    assert.notEqual(fresh, workerToken);
    const old = await n3.docker(['swarm', 'join', '--token', workerToken, `${n1.addr}:2377`]);
    assert.notEqual(old.code, 0);
    assert.match(old.stderr, /A valid join token is necessary to join this cluster/);
    await cli(n3, ['swarm', 'join', '--token', fresh, '--advertise-addr', n3.addr, `${n1.addr}:2377`]);
    workerToken = fresh;
  });

  it('updates a node: labels, availability, and a stale version refused', async () => {
    const n2Id = (await json<{ Swarm: { NodeID: string } }>(n2, 'GET', '/info')).body.Swarm.NodeID;
    const since = Math.floor(Date.now() / 1000) - 1;
    await cli(n1, ['node', 'update', '--label-add', 'zone=a', '--availability', 'drain', n2Id]);
    // the manager's events: dockerd's node update, scope swarm, with what changed
    const events = (await n1.request('GET', `/events?since=${since}&until=${Math.ceil(Date.now() / 1000) + 1}&filters=${encodeURIComponent(JSON.stringify({ type: ['node'] }))}`)).body.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { Action: string; scope: string; Actor: { ID: string; Attributes: Record<string, string> } });
    const drained = events.find((e) => e.Actor.ID === n2Id && e.Actor.Attributes['availability.new'] === 'drain');
    assert.ok(drained, JSON.stringify(events));
    assert.deepEqual([drained.Action, drained.scope, drained.Actor.Attributes['availability.old'], drained.Actor.Attributes.name], ['update', 'swarm', 'active', os.hostname()]);
    const updated = (await json<NodeJson>(n1, 'GET', `/nodes/${n2Id}`)).body;
    assert.deepEqual(updated.Spec.Labels, { zone: 'a' });
    assert.equal(updated.Spec.Availability, 'drain');
    const stale = await json<{ message: string }>(n1, 'POST', `/nodes/${n2Id}/update?version=${updated.Version.Index - 1}`, { ...updated.Spec, Availability: 'active' });
    assert.deepEqual([stale.status, stale.body.message], [500, 'rpc error: code = Unknown desc = update out of sequence']);
    const demote = await json<{ message: string }>(n1, 'POST', `/nodes/${managerId}/update?version=${(await json<NodeJson>(n1, 'GET', `/nodes/${managerId}`)).body.Version.Index}`, { Role: 'worker', Availability: 'active' });
    assert.deepEqual([demote.status, demote.body.message], [400, 'rpc error: code = FailedPrecondition desc = attempting to demote the last manager of the swarm']);
    await cli(n1, ['node', 'update', '--availability', 'active', n2Id]);
    const filtered = await json<NodeJson[]>(n1, 'GET', `/nodes?filters=${encodeURIComponent(JSON.stringify({ 'node.label': ['zone=a'] }))}`);
    assert.deepEqual(filtered.body.map((n) => n.ID), [n2Id]);
  });

  it('marks a worker cut off by iptables Down within 20 s, and Ready once healed', async () => {
    const id = (await json<{ Swarm: { NodeID: string } }>(n2, 'GET', '/info')).body.Swarm.NodeID;
    swarm.isolate(n2);
    try {
      await until('the cut-off worker down', () => stateOf(n1, id), (s) => s === 'down', 20_000);
    } finally {
      swarm.heal(n2);
    }
    await until('the healed worker ready', () => stateOf(n1, id), (s) => s === 'ready', 20_000);
  });

  it('removes nodes as dockerd does: not a manager, not one that is up unless forced', async () => {
    const n3Id = (await json<{ Swarm: { NodeID: string } }>(n3, 'GET', '/info')).body.Swarm.NodeID;
    const manager = await n1.docker(['node', 'rm', managerId]);
    assert.match(manager.stderr, new RegExp(`node ${managerId} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`));
    const up = await n1.docker(['node', 'rm', n3Id]);
    assert.match(up.stderr, new RegExp(`node ${n3Id} is not down and can't be removed`));
    // a node that left shows as Down until it is removed
    await cli(n3, ['swarm', 'leave']);
    await until('the node that left down', () => stateOf(n1, n3Id), (s) => s === 'down', 20_000);
    await cli(n1, ['node', 'rm', n3Id]);
    assert.equal(await stateOf(n1, n3Id), undefined);
    const missing = await json<{ message: string }>(n1, 'GET', `/nodes/${n3Id}`);
    assert.deepEqual([missing.status, missing.body.message], [404, `node ${n3Id} not found`]);
    // and it joins again as a new node
    await cli(n3, ['swarm', 'join', '--token', workerToken, '--advertise-addr', n3.addr, `${n1.addr}:2377`]);
    await until('three ready nodes again', () => nodes(n1), (l) => l.length === 3 && l.every((n) => n.Status.State === 'ready'));
  });

  it('keeps the swarm over a kill -9 of the manager; its workers come back Ready', async () => {
    const before = (await json<{ ID: string; Version: { Index: number } }>(n1, 'GET', '/swarm')).body;
    await n1.kill();
    await n1.start();
    const after = (await json<{ ID: string; Version: { Index: number } }>(n1, 'GET', '/swarm')).body;
    assert.equal(after.ID, before.ID);
    assert.ok(after.Version.Index >= before.Version.Index);
    await until('all nodes ready after the restart', () => nodes(n1), (l) => l.length === 3 && l.every((n) => n.Status.State === 'ready'), 30_000);
    const leader = (await nodes(n1)).find((n) => n.ManagerStatus?.Leader === true);
    assert.equal(leader?.ID, managerId);
  });

  it('locks a restarted manager under autolock until `docker swarm unlock` gives it the key', async () => {
    const out = await cli(n1, ['swarm', 'update', '--autolock=true']);
    const key = /(SWMKEY-1-[A-Za-z0-9+/]{43})/.exec(out)?.[1];
    assert.ok(key, out);
    const keyFile = path.join(n1.dataRoot, 'swarm', 'certificates', 'swarm-node.key');
    await until('the key on disk sealed', () => readFileSync(keyFile, 'utf8'), (t) => !t.includes('PRIVATE KEY'), 15_000);
    await n1.restart();
    const locked = 'Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.';
    const info = (await json<{ Swarm: Record<string, unknown> }>(n1, 'GET', '/info')).body.Swarm;
    assert.deepEqual([info.LocalNodeState, info.ControlAvailable, info.Error], ['locked', false, locked]);
    for (const p of ['/swarm', '/nodes', '/swarm/unlockkey']) {
      const res = await json<{ message: string }>(n1, 'GET', p);
      assert.deepEqual([res.status, res.body.message], [503, locked], p);
    }
    const leave = await json<{ message: string }>(n1, 'POST', '/swarm/leave');
    assert.deepEqual([leave.status, leave.body.message], [503, 'Swarm is encrypted and locked. Please unlock it first or use `--force` to ignore this message.']);
    const malformed = await json<{ message: string }>(n1, 'POST', '/swarm/unlock', { UnlockKey: 'SWMKEY-1-short' });
    assert.deepEqual([malformed.status, malformed.body.message], [400, 'invalid key string']);
    const wrong = await json<{ message: string }>(n1, 'POST', '/swarm/unlock', { UnlockKey: key.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) });
    assert.deepEqual([wrong.status, wrong.body.message], [401, 'swarm could not be unlocked: invalid key provided']);
    const unlocked = await n1.docker(['swarm', 'unlock'], { input: `${key}\n` });
    assert.equal(unlocked.code, 0, unlocked.stderr);
    const again = await json<{ message: string }>(n1, 'POST', '/swarm/unlock', { UnlockKey: key });
    assert.deepEqual([again.status, again.body.message], [409, 'swarm is not locked']);
    await until('all nodes ready after the unlock', () => nodes(n1), (l) => l.length === 3 && l.every((n) => n.Status.State === 'ready'), 30_000);
    await cli(n1, ['swarm', 'update', '--autolock=false']);
    await until('the key on disk plain again', () => readFileSync(keyFile, 'utf8'), (t) => t.includes('PRIVATE KEY'), 15_000);
  });

  it('asks every cluster-port caller but a joining one for a certificate of the swarm, and managers’ calls of managers', () => {
    const certs = (n: SwarmNode) => path.join(n.dataRoot, 'swarm', 'certificates');
    const ca = path.join(certs(n1), 'swarm-root-ca.crt');
    const call = (from: SwarmNode, urlPath: string, cert?: string, key?: string) => JSON.parse(nodeScript(from, CLUSTER_CALL, `${n1.addr}:2377`, urlPath, ca, ...(cert ? [cert, key!] : []))) as { status?: number; body?: string; error?: string };
    const noCert = call(n2, '/v1/heartbeat');
    assert.equal(noCert.status, 500);
    assert.equal(JSON.parse(noCert.body!).kind, 'unauthorized');
    // a certificate from another CA: the handshake succeeds (the port asks, it doesn't demand) but it names no one
    const other = makeTlsFixtures(tempDir());
    const foreign = call(n2, '/v1/heartbeat', other.clientCert, other.clientKey);
    assert.equal(JSON.parse(foreign.body!).kind, 'unauthorized');
    const worker = call(n2, '/v1/members', path.join(certs(n2), 'swarm-node.crt'), path.join(certs(n2), 'swarm-node.key'));
    assert.equal(JSON.parse(worker.body!).kind, 'forbidden');
    const heartbeat = call(n2, '/v1/heartbeat', path.join(certs(n2), 'swarm-node.crt'), path.join(certs(n2), 'swarm-node.key'));
    assert.equal(heartbeat.status, 200);
  });

  it('never logs a key', () => {
    for (const n of swarm.nodes) assert.doesNotMatch(n.berthd.log, /PRIVATE KEY|SWMKEY-1-/, `${n.name}'s log`);
  });
});
