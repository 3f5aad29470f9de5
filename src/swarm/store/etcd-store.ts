// The cluster store of a swarm whose managers run etcd (cluster-store.ts; docs/design/swarm.md):
// the same interface over an etcd v3 cluster through the etcd3 client's gRPC calls, which answer
// in etcd's own terms (revisions, mod_revision compares, prev_kv watches, leases), so the mapping
// is mostly field names. Where they differ:
//   - keys may live under a namespace prefix, so that several stores share one etcd: added on the
//     way in, stripped on the way out (what etcd3's namespace() does for its builders; the raw
//     calls used here give etcd's whole answers, and a txn without compares);
//   - etcd's TTLs are whole seconds: grantLease rounds up, and etcd raises a TTL below its minimum
//     (1.5 election timeouts, rounded up: 2 s with etcd's defaults) to it;
//   - lease IDs are etcd's, as decimal strings; a key without a lease has none (etcd says 0);
//   - compaction is etcd's, for the whole cluster, whatever the namespace;
//   - a CompactedError's compactRevision is the one etcd names for a watch, 0 where it names none
//     (a range, a compaction);
//   - each call is made once: etcd3 retries failed calls by default, and a txn whose answer was
//     lost may have been applied, so that its retry would find its own write and report a
//     conflict (or apply it twice). etcd's Go client does not retry writes either.
// Watches are watch streams of their own, resumed after a broken connection from the revision
// after the last one delivered, as etcd's Go client does.
import { castGrpcError, Etcd3, EtcdLeaseInvalidError, type IDuplexStream, type IEvent, type IKeyValue, type IOptions, type IRequestOp, type IWatchRequest, type IWatchResponse } from 'etcd3';
import { CompactedError, LeaseNotFoundError, type ClusterStore, type Compare, type KeyValue, type Operation, type Range, type TxnResult, type Watch, type WatchEvent } from './cluster-store.js';

export interface EtcdStoreOptions {
  /** the members' client URLs: http://HOST:PORT, or https://HOST:PORT with `tls` */
  endpoints: string[];
  /** TLS to the members (PEM): the CA that signed their certificates, and this client's certificate and key for mutual TLS */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
  /** prefixed to every key in etcd: `/berth/v1/` for berth's own; none by default */
  namespace?: string;
  /** the time limit of one call (watches excepted); 10 s by default */
  callTimeoutMs?: number;
}

type GlobalPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** Runs a call once (etcd3's fault-handling slot wants a cockatiel policy; only execute() is called). */
const ONCE = { execute: async (fn: (context: { signal: AbortSignal }) => unknown) => fn({ signal: new AbortController().signal }) } as unknown as GlobalPolicy;

const WATCH_RETRY_FIRST_MS = 100;
const WATCH_RETRY_MAX_MS = 5000;

export class EtcdStore implements ClusterStore {
  private readonly client: Etcd3;
  private readonly prefix: Buffer;
  private readonly callTimeoutMs: number;
  private readonly watches = new Set<{ cancel(): void }>();
  private closed = false;

  constructor(opts: EtcdStoreOptions) {
    if (opts.endpoints.length === 0) throw new Error('an etcd store needs at least one endpoint');
    const secure = opts.endpoints.filter((e) => e.startsWith('https://')).length;
    if (opts.tls !== undefined ? secure !== opts.endpoints.length : secure !== 0) throw new Error('etcd endpoints are https:// with TLS options, http:// without');
    this.prefix = Buffer.from(opts.namespace ?? '');
    this.callTimeoutMs = opts.callTimeoutMs ?? 10_000;
    this.client = new Etcd3({
      hosts: opts.endpoints,
      ...(opts.tls !== undefined ? { credentials: { rootCertificate: opts.tls.ca, privateKey: opts.tls.key, certChain: opts.tls.cert } } : {}),
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + this.callTimeoutMs }),
      // etcd3 keeps a circuit breaker per member, which sends calls to the others for 5 s after 3
      // failures in a row; with a single member it would only refuse calls for 5 s after it is back
      faultHandling: { global: ONCE, ...(opts.endpoints.length === 1 ? { host: () => ONCE } : {}) },
    });
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    const res = await this.call(this.client.kv.range({ key: this.key(key) }));
    return res.kvs.length > 0 ? this.keyValue(res.kvs[0]) : undefined;
  }

  async range(prefix: string, opts: { revision?: number } = {}): Promise<Range> {
    this.checkOpen();
    const at = opts.revision !== undefined && opts.revision > 0 ? opts.revision : undefined;
    const res = await this.call(this.client.kv.range({ ...this.prefixRange(prefix), ...(at !== undefined ? { revision: at } : {}) }));
    // etcd's header has the current revision, also for a range at an earlier one
    return { kvs: res.kvs.map((kv) => this.keyValue(kv)), revision: at ?? Number(res.header.revision) };
  }

  async txn(compares: readonly Compare[], success: readonly Operation[], failure: readonly Operation[] = []): Promise<TxnResult> {
    this.checkOpen();
    const leases = [...success, ...failure].flatMap((op) => ('put' in op && op.put.lease !== undefined ? [op.put.lease] : []));
    const res = await this.call(
      this.client.kv.txn({
        compare: compares.map((c) => ({ key: this.key(c.key), target: 'Mod', result: 'Equal', mod_revision: c.modRevision })),
        success: success.map((op) => this.requestOp(op)),
        failure: failure.map((op) => this.requestOp(op)),
      }),
      [...new Set(leases)].join(', '),
    );
    return { succeeded: res.succeeded, revision: Number(res.header.revision) };
  }

  watch(prefix: string, fromRevision: number, onEvents: (events: WatchEvent[], revision: number) => void, onError?: (err: Error) => void): Watch {
    this.checkOpen();
    const range = this.prefixRange(prefix);
    // the revision to start from when (re)connecting: after the last one delivered
    let next = fromRevision;
    let stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
    let retryTimer: NodeJS.Timeout | undefined;
    let retryMs = WATCH_RETRY_FIRST_MS;
    let done = false;

    const stop = () => {
      done = true;
      clearTimeout(retryTimer);
      if (stream !== undefined) endStream(stream);
      this.watches.delete(handle);
    };
    const fail = (err: Error) => {
      if (done) return;
      stop();
      onError?.(err);
    };
    const reconnect = () => {
      if (done) return;
      const broken = stream;
      stream = undefined;
      if (broken !== undefined) endStream(broken);
      retryTimer = setTimeout(() => void connect(), retryMs);
      retryMs = Math.min(retryMs * 2, WATCH_RETRY_MAX_MS);
    };
    const onResponse = (res: IWatchResponse) => {
      if (done) return;
      if (res.canceled) {
        // etcd names the compaction that took the history asked for; anything else is its reason
        fail(res.compact_revision !== '0' ? new CompactedError(Number(res.compact_revision)) : new Error(`etcd canceled the watch: ${res.cancel_reason}`));
        return;
      }
      if (res.created) {
        retryMs = WATCH_RETRY_FIRST_MS;
        // a watch from now (0) goes on after the revision it was made at, also when resumed
        if (next <= 0) next = Number(res.header.revision) + 1;
        return;
      }
      if (res.events.length === 0) {
        // a progress notification: nothing under the prefix up to the header's revision
        next = Math.max(next, Number(res.header.revision) + 1);
        return;
      }
      // one response may hold several revisions (history), never part of one
      for (const [revision, events] of groupByRevision(res.events)) {
        if (done) return;
        next = revision + 1;
        try {
          onEvents(
            events.map((e) => this.watchEvent(e)),
            revision,
          );
        } catch (err) {
          // the caller's fault, not the stream's: thrown where nothing catches it, as it would be from an event emitter
          setImmediate(() => {
            throw err;
          });
        }
      }
    };
    const connect = async () => {
      if (done) return;
      try {
        const s = await this.client.watchClient.watch();
        if (done) {
          endStream(s);
          return;
        }
        stream = s;
        s.on('data', (res) => {
          if (stream === s) onResponse(res);
        });
        // a broken connection (or etcd going away): resumed from `next`
        s.on('error', () => {
          if (stream === s) reconnect();
        });
        s.on('end', () => {
          if (stream === s) reconnect();
        });
        s.write({ create_request: { ...range, start_revision: next, prev_kv: true, progress_notify: true } });
      } catch {
        reconnect();
      }
    };

    const handle = { cancel: stop };
    this.watches.add(handle);
    void connect();
    return handle;
  }

  async grantLease(ttlMs: number): Promise<string> {
    this.checkOpen();
    const res = await this.call(this.client.leaseClient.leaseGrant({ TTL: Math.max(1, Math.ceil(ttlMs / 1000)) }));
    if (res.error !== '') throw new Error(`etcd refused the lease: ${res.error}`);
    return res.ID;
  }

  async keepAlive(lease: string): Promise<void> {
    this.checkOpen();
    const stream = await this.call(this.client.leaseClient.leaseKeepAlive({ deadline: Date.now() + this.callTimeoutMs }), lease);
    try {
      const res = await new Promise<{ TTL: string }>((resolve, reject) => {
        stream.on('data', resolve);
        stream.on('error', (err) => reject(castGrpcError(err)));
        stream.on('end', () => reject(new Error('etcd ended the keepalive stream without an answer')));
        stream.write({ ID: lease });
      });
      // etcd answers a lease it does not know (expired, revoked, never granted) with a TTL of 0
      if (res.TTL === '0') throw new LeaseNotFoundError(lease);
    } finally {
      endStream(stream);
    }
  }

  async revokeLease(lease: string): Promise<void> {
    this.checkOpen();
    await this.call(this.client.leaseClient.leaseRevoke({ ID: lease }), lease);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    await this.call(this.client.kv.compact({ revision }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watches]) w.cancel();
    this.client.close();
  }

  // ---- etcd's terms ----

  /** The answer of an etcd call, its errors in the store's terms (`lease`: the leases the call names). */
  private async call<T>(request: Promise<T>, lease = ''): Promise<T> {
    try {
      return await request;
    } catch (err) {
      throw translateError(err as Error, lease);
    }
  }

  private key(key: string): Buffer {
    return Buffer.concat([this.prefix, Buffer.from(key)]);
  }

  /** etcd's range for the keys under `prefix` (all of them for an empty one: from \0 to \0). */
  private prefixRange(prefix: string): { key: Buffer; range_end: Buffer } {
    const start = this.key(prefix);
    if (start.length === 0) return { key: Buffer.from([0]), range_end: Buffer.from([0]) };
    return { key: start, range_end: rangeEnd(start) };
  }

  private requestOp(op: Operation): IRequestOp {
    if ('put' in op) return { request_put: { key: this.key(op.put.key), value: Buffer.from(op.put.value), ...(op.put.lease !== undefined ? { lease: op.put.lease } : {}) } };
    if ('delete' in op) return { request_delete_range: { key: this.key(op.delete.key) } };
    return { request_delete_range: this.prefixRange(op.deletePrefix.prefix) };
  }

  private keyValue(kv: IKeyValue): KeyValue {
    return {
      key: kv.key.subarray(this.prefix.length).toString(),
      value: kv.value,
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
      version: Number(kv.version),
      ...(kv.lease !== '0' ? { lease: kv.lease } : {}),
    };
  }

  private watchEvent(e: IEvent): WatchEvent {
    // a delete's kv is etcd's tombstone: the key, the revision of the deletion, nothing else
    return { type: e.type === 'Put' ? 'put' : 'delete', kv: this.keyValue(e.kv), ...(e.prev_kv ? { prev: this.keyValue(e.prev_kv) } : {}) };
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the cluster store is closed');
  }
}

/** The first key after every key that starts with `prefix`: its last byte below 0xff raised by one, \0 (the end of the keyspace) if none. */
function rangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i]++;
      return end;
    }
  }
  return Buffer.from([0]);
}

/**
 * Ends a stream of ours. Half-closing first matters: etcd3 takes an error on a stream still
 * writable as a failure of the connection (and drops the client's channels), and the cancel's own
 * error would be one; etcd, for its part, goes on sending a watch's events after a half-close.
 */
function endStream(stream: { end(): void; cancel(): void }): void {
  stream.end();
  stream.cancel();
}

/** Consecutive events of one revision together, with that revision (a delete's kv carries the deletion's). */
function groupByRevision(events: IEvent[]): Array<[number, IEvent[]]> {
  const groups: Array<[number, IEvent[]]> = [];
  for (const e of events) {
    const revision = Number(e.kv.mod_revision);
    const last = groups[groups.length - 1];
    if (last !== undefined && last[0] === revision) last[1].push(e);
    else groups.push([revision, [e]]);
  }
  return groups;
}

/** etcd's errors, as etcd3 types them, in the store's terms. */
function translateError(err: Error, lease: string): Error {
  if (err instanceof EtcdLeaseInvalidError || err.message.includes('requested lease not found')) return new LeaseNotFoundError(lease);
  if (err.message.includes('required revision has been compacted')) return new CompactedError(0);
  return err;
}
