// A store whose revisions read `offset` higher than its own: what a swarm's store becomes when it
// moves from one manager's LocalStore to etcd (store-migration.ts). etcd counts its revisions from
// 1, but every object's Version.Index must go on rising past what clients saw before the move, so
// the revisions etcd gives are shown raised by the LocalStore's last one, and those given back
// (compares, ranges at a revision, watches from one) lowered again.
import type { ClusterStore, Compare, KeyValue, Operation, Range, TxnResult, Watch, WatchEvent } from './cluster-store.js';

/** A compare no key can meet: a revision from before the move, which no key has any more. */
const NEVER = Number.MAX_SAFE_INTEGER;

export class OffsetStore implements ClusterStore {
  constructor(
    private readonly inner: ClusterStore,
    private readonly offset: number,
  ) {}

  async get(key: string): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key);
    return kv === undefined ? undefined : this.out(kv);
  }

  async range(prefix: string, opts: { revision?: number } = {}): Promise<Range> {
    const r = await this.inner.range(prefix, opts.revision === undefined ? {} : { revision: Math.max(1, opts.revision - this.offset) });
    return { kvs: r.kvs.map((kv) => this.out(kv)), revision: r.revision + this.offset };
  }

  async txn(compares: readonly Compare[], success: readonly Operation[], failure?: readonly Operation[]): Promise<TxnResult> {
    const inner = compares.map((c) => ({ key: c.key, modRevision: c.modRevision === 0 ? 0 : c.modRevision > this.offset ? c.modRevision - this.offset : NEVER }));
    const r = await this.inner.txn(inner, success, failure);
    return { succeeded: r.succeeded, revision: r.revision + this.offset };
  }

  watch(prefix: string, fromRevision: number, onEvents: (events: WatchEvent[], revision: number) => void, onError?: (err: Error) => void): Watch {
    const from = fromRevision === 0 ? 0 : Math.max(1, fromRevision - this.offset);
    return this.inner.watch(prefix, from, (events, revision) => onEvents(events.map((e) => ({ type: e.type, kv: this.out(e.kv), ...(e.prev !== undefined ? { prev: this.out(e.prev) } : {}) })), revision + this.offset), onError);
  }

  grantLease(ttlMs: number): Promise<string> {
    return this.inner.grantLease(ttlMs);
  }

  keepAlive(lease: string): Promise<void> {
    return this.inner.keepAlive(lease);
  }

  revokeLease(lease: string): Promise<void> {
    return this.inner.revokeLease(lease);
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(Math.max(1, revision - this.offset));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private out(kv: KeyValue): KeyValue {
    return { ...kv, createRevision: kv.createRevision + this.offset, modRevision: kv.modRevision + this.offset };
  }
}
