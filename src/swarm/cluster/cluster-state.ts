// The swarm's objects in the cluster store, typed: the swarm itself, its nodes, the nodes'
// sessions and the leader's key. Updates compare the object's Version.Index (its key's
// modification revision) as swarmkit's store does, and answer a stale one in dockerd's words. A
// store that cannot answer (no quorum) is dockerd's "no leader" error, whatever the call.
import { EngineError } from '../../errors.js';
import type { ClusterStore, KeyValue, Operation, WatchEvent } from '../store/cluster-store.js';
import type { ClusterRecord, NodeRecord, SessionRecord } from './records.js';

const CLUSTER_KEY = '/cluster';
const NODES = '/nodes/';
export const SESSIONS = '/sessions/';
export const LEADER_KEY = '/leader';

export const NO_LEADER_MESSAGE = "rpc error: code = Unknown desc = The swarm does not have a leader. It's possible that too few managers are online. Make sure more than half of the managers are online.";

/** dockerd's words for a manager that cannot serve yet */
export const MANAGER_NOT_READY_MESSAGE = 'This node is not a swarm manager. Manager is being prepared or has trouble connecting to the cluster.';

export function updateOutOfSequence(): EngineError {
  return new EngineError('system', 'rpc error: code = Unknown desc = update out of sequence');
}

export interface Versioned<T> {
  value: T;
  version: number;
}

export class ClusterState {
  private frozen = false;
  private inFlight = 0;

  /**
   * `available`, when given, says at once whether the store can answer (an etcd member that knows
   * no leader); without it a call would wait out etcd's own time limit before failing.
   */
  constructor(
    readonly store: ClusterStore,
    private readonly available?: () => Promise<boolean>,
  ) {}

  async cluster(): Promise<Versioned<ClusterRecord>> {
    const kv = await this.call(() => this.store.get(CLUSTER_KEY));
    if (kv === undefined) throw new EngineError('system', 'the swarm has no cluster object');
    return versioned(kv);
  }

  /** Replaces the swarm's record if its version is still `version`. */
  async updateCluster(version: number, record: ClusterRecord): Promise<void> {
    await this.compareAndPut(CLUSTER_KEY, version, record);
  }

  async nodes(): Promise<Array<Versioned<NodeRecord>>> {
    const { kvs } = await this.call(() => this.store.range(NODES));
    return kvs.map((kv) => versioned<NodeRecord>(kv));
  }

  async node(id: string): Promise<Versioned<NodeRecord> | undefined> {
    const kv = await this.call(() => this.store.get(NODES + id));
    return kv === undefined ? undefined : versioned(kv);
  }

  /** Writes a node's record if its version is still `version` (0: it must be new). */
  async putNode(version: number, record: NodeRecord): Promise<void> {
    await this.compareAndPut(NODES + record.id, version, record);
  }

  async deleteNode(id: string, version: number): Promise<void> {
    await this.commit([{ key: NODES + id, modRevision: version }], [{ delete: { key: NODES + id } }]);
  }

  /** The first swarm record and node, together (what init writes). */
  async create(cluster: ClusterRecord, node: NodeRecord): Promise<void> {
    const put = (key: string, value: unknown): Operation => ({ put: { key, value: encode(value) } });
    await this.commit([{ key: CLUSTER_KEY, modRevision: 0 }], [put(CLUSTER_KEY, cluster), put(NODES + node.id, node)]);
  }

  async sessions(): Promise<Map<string, { record: SessionRecord; lease?: string }>> {
    const { kvs } = await this.call(() => this.store.range(SESSIONS));
    return new Map(kvs.map((kv) => [kv.key.slice(SESSIONS.length), { record: decode<SessionRecord>(kv.value), lease: kv.lease }]));
  }

  async session(nodeId: string): Promise<{ record: SessionRecord; lease?: string } | undefined> {
    const kv = await this.call(() => this.store.get(SESSIONS + nodeId));
    return kv === undefined ? undefined : { record: decode<SessionRecord>(kv.value), lease: kv.lease };
  }

  /** Opens a node's session on a new lease of `ttlMs`; its lease. */
  async openSession(record: SessionRecord, ttlMs: number): Promise<string> {
    const lease = await this.call(() => this.store.grantLease(ttlMs));
    await this.call(() => this.store.txn([], [{ put: { key: SESSIONS + record.nodeId, value: encode(record), lease } }]));
    return lease;
  }

  async leader(): Promise<string | undefined> {
    const kv = await this.call(() => this.store.get(LEADER_KEY));
    return kv === undefined ? undefined : decode<{ nodeId: string }>(kv.value).nodeId;
  }

  /** Watches the nodes' records, calling `onChange` with each change's record before and after. */
  watchNodes(fromRevision: number, onChange: (now: NodeRecord | undefined, before: NodeRecord | undefined, revision: number) => void) {
    return this.store.watch(NODES, fromRevision, (events: WatchEvent[], revision) => {
      for (const e of events) onChange(e.type === 'put' ? decode(e.kv.value) : undefined, e.prev === undefined ? undefined : decode(e.prev.value), revision);
    });
  }

  watchSessions(fromRevision: number, onChange: (nodeId: string, open: boolean) => void) {
    return this.store.watch(SESSIONS, fromRevision, (events) => {
      for (const e of events) onChange(e.kv.key.slice(SESSIONS.length), e.type === 'put');
    });
  }

  private async compareAndPut(key: string, version: number, value: unknown): Promise<void> {
    await this.commit([{ key, modRevision: version }], [{ put: { key, value: encode(value) } }]);
  }

  private async commit(compares: Array<{ key: string; modRevision: number }>, ops: Operation[]): Promise<void> {
    const result = await this.call(() => this.store.txn(compares, ops));
    if (!result.succeeded) throw updateOutOfSequence();
  }

  /** A store call whose failure to answer is the swarm's loss of its leader. */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.frozen) throw new EngineError('unavailable', MANAGER_NOT_READY_MESSAGE);
    this.inFlight++;
    try {
      if (this.available !== undefined && !(await this.available())) throw new Error('the store has no leader');
      return await fn();
    } catch (err) {
      if (err instanceof EngineError) throw err;
      throw new EngineError('system', NO_LEADER_MESSAGE, { cause: err });
    } finally {
      this.inFlight--;
    }
  }

  /** Refuses new calls and waits for those under way: the store is about to move. */
  async freeze(): Promise<void> {
    this.frozen = true;
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  }
}

function versioned<T>(kv: KeyValue): Versioned<T> {
  return { value: decode<T>(kv.value), version: kv.modRevision };
}

export function encode(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

export function decode<T>(bytes: Uint8Array): T {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as T;
}
