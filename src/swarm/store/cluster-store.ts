// The swarm's state store, with etcd's data model (the subset berth uses), so that one manager's
// in-process store (local-store.ts) and several managers' etcd cluster are the same to the code
// above them (docs/design/swarm.md, "Cluster store"):
//   - one revision counter for the whole store, raised by every transaction that changes a key;
//     each key keeps the revision that created it, the one that last changed it (a swarm object's
//     Version.Index) and how often it changed since its creation;
//   - transactions that compare keys' modification revisions (0: the key must not exist), then
//     apply one list of operations or the other, atomically;
//   - ranges over a prefix, now or as they were at an earlier revision;
//   - watches of a prefix from a revision, each event with the key's previous value;
//   - leases: keys attached to one go when it expires or is revoked.
// History older than the last compaction is gone: a range or a watch asking for it fails with
// CompactedError, as etcd's ErrCompacted.

export interface KeyValue {
  key: string;
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
  /** changes since the key's creation: 1 when created */
  version: number;
  /** the lease the key is attached to */
  lease?: string;
}

/** A key's modification revision must be `modRevision`; 0 means the key must not exist. */
export interface Compare {
  key: string;
  modRevision: number;
}

export type Operation = { put: { key: string; value: Uint8Array; lease?: string } } | { delete: { key: string } } | { deletePrefix: { prefix: string } };

export interface TxnResult {
  succeeded: boolean;
  /** the store's revision after the transaction */
  revision: number;
}

export interface WatchEvent {
  type: 'put' | 'delete';
  /** for a delete: the key, with the revision of its deletion as modRevision and an empty value */
  kv: KeyValue;
  /** the key as it was before, if it existed */
  prev?: KeyValue;
}

export interface Watch {
  cancel(): void;
}

export interface Range {
  kvs: KeyValue[];
  /** the revision the range was read at */
  revision: number;
}

export interface ClusterStore {
  get(key: string): Promise<KeyValue | undefined>;
  /** The keys under `prefix` in key order, at `revision` (the current one by default). */
  range(prefix: string, opts?: { revision?: number }): Promise<Range>;
  txn(compares: readonly Compare[], success: readonly Operation[], failure?: readonly Operation[]): Promise<TxnResult>;
  /**
   * Calls `onEvents` with the changes under `prefix` from `fromRevision` on (the history first,
   * then each transaction as it commits, the events of one transaction together), never before
   * watch() has returned. From revision 0: what comes once the watch is set up, as etcd's (no
   * history; a write soon after the call may come before that and be missed).
   */
  watch(prefix: string, fromRevision: number, onEvents: (events: WatchEvent[], revision: number) => void, onError?: (err: Error) => void): Watch;
  /** A lease that expires `ttlMs` after its grant or its last keepAlive. */
  grantLease(ttlMs: number): Promise<string>;
  keepAlive(lease: string): Promise<void>;
  /** Deletes the keys attached to the lease, and the lease. */
  revokeLease(lease: string): Promise<void>;
  /** Forgets the history before `revision`. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

/** A range or watch asked for history the store has compacted away (etcd's ErrCompacted). */
export class CompactedError extends Error {
  /** `compactRevision`: the revision of the last compaction, 0 where the store does not say (etcd names it for watches only) */
  constructor(readonly compactRevision: number) {
    super('mvcc: required revision has been compacted');
    this.name = 'CompactedError';
  }
}

/** A lease that expired, was revoked or never was (etcd's ErrLeaseNotFound). */
export class LeaseNotFoundError extends Error {
  constructor(lease: string) {
    super(`etcdserver: requested lease not found (${lease})`);
    this.name = 'LeaseNotFoundError';
  }
}
