// The nodes' calls against a real LocalStore through ClusterState, with node records made by hand,
// checked against dockerd 20.10 (daemon/cluster: getNode, newListNodesFilters,
// convert.NodeSpecToGRPC) and its swarmkit (controlapi/node.go: ListNodes, UpdateNode,
// RemoveNode), in their words.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { FilterArgs } from '../../lib/filters.js';
import type { NodeRole } from '../ca/swarm-ca.js';
import { ClusterState, encode, LEADER_KEY } from '../cluster/cluster-state.js';
import type { Availability, NodeRecord, NodeState } from '../cluster/records.js';
import { LocalStore } from '../store/local-store.js';
import { decodeNodeSpec, findNode, listNodes, removeNode, updateNode, type NodeSpecUpdate } from './node-control.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-node-control-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;

const id = (prefix: string) => prefix.padEnd(25, '0');
const AT = '2026-11-26T07:47:00.000000000Z';

interface NodeOptions {
  hostname: string;
  role?: NodeRole;
  state?: NodeState;
  engineLabels?: Record<string, string>;
  specLabels?: Record<string, string>;
  specName?: string;
  availability?: Availability;
}

function nodeRecord(nodeId: string, o: NodeOptions): NodeRecord {
  const role = o.role ?? 'worker';
  return {
    id: nodeId,
    createdAt: AT,
    updatedAt: AT,
    spec: { name: o.specName ?? '', labels: o.specLabels ?? {}, role, availability: o.availability ?? 'active' },
    role,
    description: { hostname: o.hostname, platform: { architecture: 'x86_64', os: 'linux' }, resources: { nanoCpus: 2e9, memoryBytes: 2 ** 31 }, engine: { engineVersion: '20.10.27', labels: o.engineLabels ?? {}, plugins: [] } },
    status: { state: o.state ?? 'ready', message: '', addr: '10.0.0.1' },
    ...(role === 'manager' ? { managerAddr: '10.0.0.1:2377' } : {}),
  };
}

const M1 = id('aaa1');
const W1 = id('aab2');
const W2 = id('bbb3');

/** A manager and two workers, the manager leading with its session open. */
const CLUSTER: NodeRecord[] = [
  nodeRecord(M1, { hostname: 'manager-1', role: 'manager', engineLabels: { zone: 'a', ssd: 'true' }, specLabels: { tier: 'front' } }),
  nodeRecord(W1, { hostname: 'worker-1', engineLabels: { zone: 'b' }, specLabels: { tier: 'back' } }),
  nodeRecord(W2, { hostname: 'worker-2' }),
];

/** A fresh store holding `nodes`, for `fn`. */
async function withNodes(nodes: NodeRecord[], fn: (state: ClusterState) => Promise<void>): Promise<void> {
  const store = await LocalStore.open(path.join(scratch, `store-${dirs++}`));
  try {
    const state = new ClusterState(store);
    for (const n of nodes) await state.putNode(0, n);
    const leader = nodes.find((n) => n.role === 'manager');
    if (leader !== undefined) {
      await store.txn([], [{ put: { key: LEADER_KEY, value: encode({ nodeId: leader.id }) } }]);
      await state.openSession({ nodeId: leader.id, managerId: leader.id }, 60_000);
    }
    await fn(state);
  } finally {
    await store.close();
  }
}

const filters = (f: Record<string, string[]>) => FilterArgs.fromJson(JSON.stringify(f));

async function listed(state: ClusterState, f: Record<string, string[]>): Promise<string[]> {
  return (await listNodes(state, filters(f))).map((v) => v.node.value.id).sort();
}

async function rejectsWith(promise: Promise<unknown>, kind: string, message: string): Promise<void> {
  await assert.rejects(promise, (err: Error & { kind: string }) => {
    assert.equal(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  });
}

function throwsWith(fn: () => unknown, kind: string, message: string): void {
  assert.throws(fn, (err: Error & { kind: string }) => {
    assert.equal(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  });
}

describe('decodeNodeSpec', () => {
  it('reads a node spec', () => {
    assert.deepEqual(decodeNodeSpec({ Name: 'n', Labels: { a: 'b' }, Role: 'worker', Availability: 'drain' }), { name: 'n', labels: { a: 'b' }, role: 'worker', availability: 'drain' });
    assert.deepEqual(decodeNodeSpec({ Role: 'manager', Availability: 'pause' }), { name: '', labels: {}, role: 'manager', availability: 'pause' });
  });

  it('reads the role and availability in any case, as NodeSpecToGRPC (strings.ToUpper, then the enum)', () => {
    assert.deepEqual(decodeNodeSpec({ Role: 'Manager', Availability: 'DRAIN' }), { name: '', labels: {}, role: 'manager', availability: 'drain' });
    assert.deepEqual(decodeNodeSpec({ Role: 'WORKER', Availability: 'Pause' }), { name: '', labels: {}, role: 'worker', availability: 'pause' });
  });

  it("refuses an unknown or missing role or availability, the role first, in dockerd's words", () => {
    throwsWith(() => decodeNodeSpec({ Role: 'bogus', Availability: 'active' }), 'invalidParameter', 'invalid Role: "bogus"');
    throwsWith(() => decodeNodeSpec({ Availability: 'active' }), 'invalidParameter', 'invalid Role: ""');
    throwsWith(() => decodeNodeSpec({ Role: '', Availability: 'active' }), 'invalidParameter', 'invalid Role: ""');
    throwsWith(() => decodeNodeSpec({ Role: 'worker', Availability: 'bogus' }), 'invalidParameter', 'invalid Availability: "bogus"');
    throwsWith(() => decodeNodeSpec({ Role: 'worker' }), 'invalidParameter', 'invalid Availability: ""');
    throwsWith(() => decodeNodeSpec({ Role: 'bogus', Availability: 'bogus' }), 'invalidParameter', 'invalid Role: "bogus"');
  });
});

describe('listNodes', () => {
  it('lists every node, managers with their leadership and reachability', async () => {
    await withNodes(CLUSTER, async (state) => {
      const views = await listNodes(state, FilterArgs.empty());
      assert.deepEqual(views.map((v) => [v.node.value.id, v.manager]).sort(), [
        [M1, { leader: true, reachability: 'reachable' }],
        [W1, undefined],
        [W2, undefined],
      ]);
      assert.ok(views.every((v) => v.node.version > 0));
    });
  });

  it('shows a manager without a session as unreachable, and not leading when another leads', async () => {
    const m2 = nodeRecord(id('ccc4'), { hostname: 'manager-2', role: 'manager' });
    await withNodes([...CLUSTER, m2], async (state) => {
      const view = (await listNodes(state, filters({ id: [m2.id] })))[0];
      assert.deepEqual(view?.manager, { leader: false, reachability: 'unreachable' });
    });
  });

  it('filters by ID prefix and name prefix, any of the values', async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { id: ['aa'] }), [M1, W1]);
      assert.deepEqual(await listed(state, { id: ['aab', 'bbb'] }), [W1, W2]);
      assert.deepEqual(await listed(state, { id: [M1] }), [M1]);
      assert.deepEqual(await listed(state, { id: ['zz'] }), []);
      assert.deepEqual(await listed(state, { name: ['worker'] }), [W1, W2]);
      assert.deepEqual(await listed(state, { name: ['manager-1', 'worker-2'] }), [M1, W2]);
      // swarmkit's prefix match is case-sensitive
      assert.deepEqual(await listed(state, { name: ['Worker'] }), []);
    });
  });

  it('filters by role, and refuses an unknown one in dockerd\'s words', async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { role: ['manager'] }), [M1]);
      assert.deepEqual(await listed(state, { role: ['worker'] }), [W1, W2]);
      assert.deepEqual(await listed(state, { role: ['manager', 'worker'] }), [M1, W1, W2]);
      await rejectsWith(listNodes(state, filters({ role: ['x'] })), 'invalidParameter', "Invalid role filter: 'x'");
    });
  });

  it('filters by membership: every node is accepted', async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { membership: ['accepted'] }), [M1, W1, W2]);
      assert.deepEqual(await listed(state, { membership: ['pending'] }), []);
      await rejectsWith(listNodes(state, filters({ membership: ['x'] })), 'invalidParameter', "Invalid membership filter: 'x'");
    });
  });

  it('reads roles and memberships in any case and ignores empty ones, as dockerd (strings.ToUpper, then the enum)', async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { role: ['MANAGER'] }), [M1]);
      assert.deepEqual(await listed(state, { role: ['Worker'] }), [W1, W2]);
      assert.deepEqual(await listed(state, { role: [''] }), [M1, W1, W2]);
      assert.deepEqual(await listed(state, { role: ['', 'manager'] }), [M1]);
      assert.deepEqual(await listed(state, { membership: ['Accepted'] }), [M1, W1, W2]);
      assert.deepEqual(await listed(state, { membership: ['PENDING'] }), []);
      assert.deepEqual(await listed(state, { membership: [''] }), [M1, W1, W2]);
      await rejectsWith(listNodes(state, filters({ role: ['Bogus'] })), 'invalidParameter', "Invalid role filter: 'Bogus'");
    });
  });

  it("filters `label` by the engine's labels and `node.label` by the spec's, a key or key=value", async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { label: ['zone'] }), [M1, W1]);
      assert.deepEqual(await listed(state, { label: ['zone=b'] }), [W1]);
      assert.deepEqual(await listed(state, { label: ['zone=a', 'ssd'] }), [M1]);
      assert.deepEqual(await listed(state, { label: ['tier'] }), []);
      assert.deepEqual(await listed(state, { 'node.label': ['tier'] }), [M1, W1]);
      assert.deepEqual(await listed(state, { 'node.label': ['tier=back'] }), [W1]);
      assert.deepEqual(await listed(state, { 'node.label': ['zone'] }), []);
    });
  });

  it("asks only for the label's presence with `key=`, as swarmkit's filterMatchLabels (an empty value matches any)", async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { label: ['zone='] }), [M1, W1]);
      assert.deepEqual(await listed(state, { 'node.label': ['tier='] }), [M1, W1]);
      assert.deepEqual(await listed(state, { label: ['ssd=', 'zone=a'] }), [M1]);
    });
  });

  it('takes all the filters given together', async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.deepEqual(await listed(state, { role: ['worker'], label: ['zone'] }), [W1]);
      assert.deepEqual(await listed(state, { id: ['aa'], name: ['worker'] }), [W1]);
    });
  });

  it('refuses an unknown filter key', async () => {
    await withNodes(CLUSTER, async (state) => {
      // dockerd 20.10 writes "Invalid filter 'foo'"; berth's FilterArgs.validate, shared by every area, writes it in lower case
      await assert.rejects(listNodes(state, filters({ foo: ['x'] })), (err: Error & { kind: string }) => {
        assert.match(err.message, /^invalid filter 'foo'$/i);
        assert.equal(err.kind, 'invalidParameter');
        return true;
      });
    });
  });
});

describe('findNode', () => {
  it('finds a node by ID, by name (its hostname), then by ID prefix', async () => {
    await withNodes(CLUSTER, async (state) => {
      assert.equal((await findNode(state, W1)).node.value.id, W1);
      assert.equal((await findNode(state, 'worker-2')).node.value.id, W2);
      assert.equal((await findNode(state, 'bbb')).node.value.id, W2);
      assert.equal((await findNode(state, 'aab')).node.value.id, W1);
      const manager = await findNode(state, 'manager-1');
      assert.deepEqual(manager.manager, { leader: true, reachability: 'reachable' });
    });
  });

  it('takes a name before an ID prefix', async () => {
    // a node whose hostname is another's ID prefix
    const named = nodeRecord(id('ddd5'), { hostname: 'bbb' });
    await withNodes([...CLUSTER, named], async (state) => {
      assert.equal((await findNode(state, 'bbb')).node.value.id, named.id);
    });
  });

  it("goes by the hostname, never the spec's name, for a name as for the name filter (swarmkit's name index)", async () => {
    const renamed = nodeRecord(id('iii0'), { hostname: 'worker-6', specName: 'renamed' });
    await withNodes([...CLUSTER, renamed], async (state) => {
      assert.equal((await findNode(state, 'worker-6')).node.value.id, renamed.id);
      await rejectsWith(findNode(state, 'renamed'), 'notFound', 'node renamed not found');
      assert.deepEqual(await listed(state, { name: ['worker-6'] }), [renamed.id]);
      assert.deepEqual(await listed(state, { name: ['renamed'] }), []);
    });
  });

  it('refuses a name or ID prefix that matches several nodes', async () => {
    const twin = nodeRecord(id('eee6'), { hostname: 'worker-1' });
    await withNodes([...CLUSTER, twin], async (state) => {
      // dockerd's getNode: errdefs.InvalidParameter, a 400
      await rejectsWith(findNode(state, 'worker-1'), 'invalidParameter', 'node worker-1 is ambiguous (2 matches found)');
      await rejectsWith(findNode(state, 'aa'), 'invalidParameter', 'node aa is ambiguous (2 matches found)');
    });
  });

  it('says a node is not found', async () => {
    await withNodes(CLUSTER, async (state) => {
      await rejectsWith(findNode(state, 'zzz'), 'notFound', 'node zzz not found');
    });
  });
});

describe('updateNode', () => {
  const spec = (n: NodeRecord, change: Partial<NodeSpecUpdate> = {}): NodeSpecUpdate => ({ ...n.spec, ...change });

  it("replaces the node's spec at the version read", async () => {
    await withNodes(CLUSTER, async (state) => {
      const { node } = await findNode(state, W1);
      await updateNode(state, 'worker-1', node.version, spec(node.value, { labels: { x: 'y' }, availability: 'drain' }));
      const now = (await state.node(W1))!;
      assert.ok(now.version > node.version);
      assert.deepEqual(now.value.spec, { name: '', labels: { x: 'y' }, role: 'worker', availability: 'drain' });
      assert.notEqual(now.value.updatedAt, AT);
    });
  });

  it("refuses a stale version with swarmkit's sequence conflict", async () => {
    await withNodes(CLUSTER, async (state) => {
      const { node } = await findNode(state, W1);
      await updateNode(state, W1, node.version, spec(node.value, { labels: { a: '1' } }));
      await rejectsWith(updateNode(state, W1, node.version, spec(node.value, { labels: { a: '2' } })), 'system', 'rpc error: code = Unknown desc = update out of sequence');
      await rejectsWith(updateNode(state, W1, node.version, spec(node.value, { role: 'manager' })), 'system', 'rpc error: code = Unknown desc = update out of sequence');
      assert.deepEqual((await state.node(W1))!.value.spec.labels, { a: '1' });
    });
  });

  it('refuses to demote the last manager, whatever the version', async () => {
    await withNodes(CLUSTER, async (state) => {
      const { node } = await findNode(state, M1);
      const message = 'rpc error: code = FailedPrecondition desc = attempting to demote the last manager of the swarm';
      await rejectsWith(updateNode(state, M1, node.version, spec(node.value, { role: 'worker' })), 'invalidParameter', message);
      await rejectsWith(updateNode(state, M1, node.version - 1, spec(node.value, { role: 'worker' })), 'invalidParameter', message);
    });
  });

  it('refuses a demotion that leaves managers short of a quorum, counting those with a session', async () => {
    const m2 = nodeRecord(id('ccc4'), { hostname: 'manager-2', role: 'manager' });
    const m3 = nodeRecord(id('ccc5'), { hostname: 'manager-3', role: 'manager' });
    await withNodes([...CLUSTER, m2, m3], async (state) => {
      // M1 and m2 are up, m3 is not: demoting M1 leaves m2 alone of two
      await state.openSession({ nodeId: M1, managerId: M1 }, 60_000);
      await state.openSession({ nodeId: m2.id, managerId: M1 }, 60_000);
      const m = (await state.node(M1))!;
      await rejectsWith(updateNode(state, M1, m.version, spec(m.value, { role: 'worker' })), 'invalidParameter', "rpc error: code = FailedPrecondition desc = can't remove member from the raft: this would result in a loss of quorum");
      // demoting the one that is down leaves two of two
      const down = (await state.node(m3.id))!;
      await updateNode(state, m3.id, down.version, spec(down.value, { role: 'worker' }));
      assert.deepEqual([(await state.node(m3.id))!.value.spec.role, (await state.node(m3.id))!.value.role], ['worker', 'manager']);
    });
  });

  it('asks for a promotion in the spec only: the node carries it out', async () => {
    await withNodes(CLUSTER, async (state) => {
      const w = (await state.node(W1))!;
      await updateNode(state, W1, w.version, spec(w.value, { role: 'manager' }));
      assert.deepEqual([(await state.node(W1))!.value.spec.role, (await state.node(W1))!.value.role], ['manager', 'worker']);
    });
  });
});

describe('removeNode', () => {
  function sessions() {
    const ended: string[] = [];
    return { ended, endSession: async (nodeId: string) => void ended.push(nodeId) };
  }

  it('refuses to remove a manager, even with force', async () => {
    await withNodes(CLUSTER, async (state) => {
      const { ended, endSession } = sessions();
      const message = `rpc error: code = FailedPrecondition desc = node ${M1} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`;
      await rejectsWith(removeNode(state, 'manager-1', false, endSession), 'invalidParameter', message);
      await rejectsWith(removeNode(state, M1, true, endSession), 'invalidParameter', message);
      assert.deepEqual(ended, []);
      assert.ok(await state.node(M1));
    });
  });

  it('refuses to remove a ready worker without force', async () => {
    await withNodes(CLUSTER, async (state) => {
      const { ended, endSession } = sessions();
      await rejectsWith(removeNode(state, 'worker-1', false, endSession), 'invalidParameter', `rpc error: code = FailedPrecondition desc = node ${W1} is not down and can't be removed`);
      assert.deepEqual(ended, []);
      assert.ok(await state.node(W1));
    });
  });

  it('removes a ready worker with force, and a down one without, ending their sessions', async () => {
    const down = nodeRecord(id('fff7'), { hostname: 'worker-3', state: 'down' });
    await withNodes([...CLUSTER, down], async (state) => {
      const { ended, endSession } = sessions();
      await removeNode(state, 'worker-1', true, endSession);
      await removeNode(state, 'fff', false, endSession);
      assert.deepEqual(ended, [W1, down.id]);
      assert.equal(await state.node(W1), undefined);
      assert.equal(await state.node(down.id), undefined);
      assert.deepEqual(await listed(state, {}), [M1, W2]);
    });
  });

  it("removes a worker that is not ready without force: swarmkit refuses only a ready one", async () => {
    // one that joined and has not sent its first heartbeat yet, and one whose session was lost
    const unknown = nodeRecord(id('ggg8'), { hostname: 'worker-4', state: 'unknown' });
    const disconnected = nodeRecord(id('hhh9'), { hostname: 'worker-5', state: 'disconnected' });
    await withNodes([...CLUSTER, unknown, disconnected], async (state) => {
      const { ended, endSession } = sessions();
      await removeNode(state, 'worker-4', false, endSession);
      await removeNode(state, 'worker-5', false, endSession);
      assert.deepEqual(ended, [unknown.id, disconnected.id]);
      assert.deepEqual(await listed(state, {}), [M1, W1, W2]);
    });
  });

  it('says a node to remove is not found', async () => {
    await withNodes(CLUSTER, async (state) => {
      await rejectsWith(removeNode(state, 'zzz', true, sessions().endSession), 'notFound', 'node zzz not found');
    });
  });
});
