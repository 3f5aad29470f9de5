// The cluster store of a swarm with one manager (cluster-store.ts): the whole state in memory,
// with its history since the last compaction for ranges at a revision and watches from one, and
// persisted so that a restart keeps the swarm:
//   <dir>/store.log       one line per change, `<crc32 hex> <json>`, appended and fdatasync'ed
//                         before the change is answered or seen (writes that come together share
//                         one fdatasync); a torn or corrupt tail is cut off at load
//   <dir>/store.snapshot  the whole state at a revision, written atomically every
//                         SNAPSHOT_EVERY lines, after which the log starts again empty
// Reads wait for what was written before them to be durable, so nothing is read that a crash
// could take back. Leases are kept with their TTL, and run afresh from a restart, as etcd's do.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { writeFileAtomic } from '../../store/atomic-file.js';
import { CompactedError, LeaseNotFoundError, type ClusterStore, type Compare, type KeyValue, type Operation, type Range, type TxnResult, type Watch, type WatchEvent } from './cluster-store.js';

const SNAPSHOT_EVERY = 10_000;
const LEASE_CHECK_MS = 250;

/** A change as the log keeps it: its effects, not the request (a replay evaluates nothing). */
type LogEntry =
  | { t: 'txn'; rev: number; puts: Array<[key: string, value: string, lease?: string]>; dels: string[]; revoked?: string }
  | { t: 'lease'; id: string; ttlMs: number }
  | { t: 'compact'; rev: number };

interface Snapshot {
  revision: number;
  compactRevision: number;
  kvs: Array<Omit<KeyValue, 'value'> & { value: string }>;
  leases: Array<{ id: string; ttlMs: number }>;
}

interface Lease {
  ttlMs: number;
  expiresAt: number;
  keys: Set<string>;
}

interface Watcher {
  prefix: string;
  onEvents: (events: WatchEvent[], revision: number) => void;
}

export class LocalStore implements ClusterStore {
  private readonly kvs = new Map<string, KeyValue>();
  private readonly history: Array<{ revision: number; events: WatchEvent[] }> = [];
  private readonly leases = new Map<string, Lease>();
  private readonly watchers = new Set<Watcher>();
  private revision = 1;
  private compactRevision = 0;
  private durableRevision = 1;
  /** lines waiting for the next write, with who waits for them */
  private pending: Array<{ line: string; done: () => void; failed: (err: Error) => void }> = [];
  private flushing: Promise<void> | undefined;
  private linesInLog = 0;
  private closed = false;
  private readonly leaseTimer: NodeJS.Timeout;

  private constructor(
    private readonly dir: string,
    private readonly log: FileHandle,
  ) {
    this.leaseTimer = setInterval(() => void this.expireLeases(), LEASE_CHECK_MS);
    this.leaseTimer.unref();
  }

  /** Opens the store in `dir` (made if missing), state as the last durable change left it. */
  static async open(dir: string): Promise<LocalStore> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const logFile = path.join(dir, 'store.log');
    const handle = await open(logFile, 'a+', 0o600);
    const store = new LocalStore(dir, handle);
    try {
      await store.load(logFile);
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    await this.durable();
    return this.kvs.get(key);
  }

  async range(prefix: string, opts: { revision?: number } = {}): Promise<Range> {
    await this.durable();
    const at = opts.revision ?? this.durableRevision;
    if (at < this.compactRevision) throw new CompactedError(this.compactRevision);
    if (at > this.durableRevision) throw new Error('mvcc: required revision is a future revision');
    const view = new Map<string, KeyValue>();
    for (const [key, kv] of this.kvs) if (key.startsWith(prefix)) view.set(key, kv);
    // back from the newest change to the revision asked for
    for (let i = this.history.length - 1; i >= 0 && this.history[i].revision > at; i--) {
      for (const event of this.history[i].events) {
        if (!event.kv.key.startsWith(prefix)) continue;
        if (event.prev === undefined) view.delete(event.kv.key);
        else view.set(event.kv.key, event.prev);
      }
    }
    return { kvs: [...view.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), revision: at };
  }

  async txn(compares: readonly Compare[], success: readonly Operation[], failure: readonly Operation[] = []): Promise<TxnResult> {
    this.checkOpen();
    const succeeded = compares.every((c) => (this.kvs.get(c.key)?.modRevision ?? 0) === c.modRevision);
    const events = this.effects(succeeded ? success : failure);
    if (events.length === 0) {
      await this.durable();
      return { succeeded, revision: this.revision };
    }
    return { succeeded, revision: await this.commit(events) };
  }

  watch(prefix: string, fromRevision: number, onEvents: (events: WatchEvent[], revision: number) => void, onError?: (err: Error) => void): Watch {
    const watcher: Watcher = { prefix, onEvents };
    // 0: from now on, as etcd's
    const from = fromRevision > 0 ? fromRevision : this.durableRevision + 1;
    let cancelled = false;
    // after the caller has its Watch, as etcd's come: the history that is durable by then, and
    // from then on each change as it becomes durable
    queueMicrotask(() => {
      if (cancelled) return;
      if (from < this.compactRevision) {
        onError?.(new CompactedError(this.compactRevision));
        return;
      }
      for (const { revision, events } of this.history) {
        if (revision < from || revision > this.durableRevision) continue;
        const mine = events.filter((e) => e.kv.key.startsWith(prefix));
        if (mine.length > 0 && !cancelled) onEvents(mine, revision);
      }
      if (!cancelled) this.watchers.add(watcher);
    });
    return {
      cancel: () => {
        cancelled = true;
        this.watchers.delete(watcher);
      },
    };
  }

  async grantLease(ttlMs: number): Promise<string> {
    this.checkOpen();
    const id = randomBytes(8).toString('hex');
    this.leases.set(id, { ttlMs, expiresAt: Date.now() + ttlMs, keys: new Set() });
    await this.append({ t: 'lease', id, ttlMs });
    return id;
  }

  async keepAlive(lease: string): Promise<void> {
    const found = this.leases.get(lease);
    if (found === undefined) throw new LeaseNotFoundError(lease);
    found.expiresAt = Date.now() + found.ttlMs;
    await this.durable();
  }

  async revokeLease(lease: string): Promise<void> {
    this.checkOpen();
    const found = this.leases.get(lease);
    if (found === undefined) throw new LeaseNotFoundError(lease);
    await this.dropLease(lease, found);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compactRevision) throw new CompactedError(this.compactRevision);
    if (revision > this.revision) throw new Error('mvcc: required revision is a future revision');
    this.compactTo(revision);
    await this.append({ t: 'compact', rev: revision });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.leaseTimer);
    this.watchers.clear();
    await this.flushing;
    await this.log.close();
  }

  // ---- changes ----

  /** What the operations change, as events at the next revision; refused whole before anything changes. */
  private effects(ops: readonly Operation[]): WatchEvent[] {
    const revision = this.revision + 1;
    const touched = new Set<string>();
    const events: WatchEvent[] = [];
    const touch = (key: string) => {
      if (touched.has(key)) throw new Error('etcdserver: duplicate key given in txn request');
      touched.add(key);
    };
    for (const op of ops) {
      if ('put' in op) {
        const { key, value, lease } = op.put;
        touch(key);
        if (lease !== undefined && !this.leases.has(lease)) throw new LeaseNotFoundError(lease);
        const prev = this.kvs.get(key);
        const kv: KeyValue = { key, value, createRevision: prev?.createRevision ?? revision, modRevision: revision, version: (prev?.version ?? 0) + 1, ...(lease !== undefined ? { lease } : {}) };
        events.push({ type: 'put', kv, ...(prev ? { prev } : {}) });
      } else {
        const keys = 'delete' in op ? [op.delete.key] : [...this.kvs.keys()].filter((k) => k.startsWith(op.deletePrefix.prefix));
        if ('delete' in op) touch(op.delete.key);
        for (const key of keys) {
          const prev = this.kvs.get(key);
          if (prev === undefined) continue;
          if ('deletePrefix' in op) touch(key);
          events.push({ type: 'delete', kv: { key, value: new Uint8Array(), createRevision: 0, modRevision: revision, version: 0 }, prev });
        }
      }
    }
    return events;
  }

  /** Applies the events at the next revision in memory at once, then waits until they are durable and tells the watchers; that revision. */
  private async commit(events: WatchEvent[], revoked?: string): Promise<number> {
    const revision = ++this.revision;
    this.apply(events, revision);
    await this.append({
      t: 'txn',
      rev: revision,
      puts: events.filter((e) => e.type === 'put').map((e) => [e.kv.key, Buffer.from(e.kv.value).toString('base64'), ...(e.kv.lease !== undefined ? [e.kv.lease] : [])] as [string, string, string?]),
      dels: events.filter((e) => e.type === 'delete').map((e) => e.kv.key),
      ...(revoked !== undefined ? { revoked } : {}),
    });
    this.durableRevision = Math.max(this.durableRevision, revision);
    for (const w of this.watchers) {
      const mine = events.filter((e) => e.kv.key.startsWith(w.prefix));
      if (mine.length > 0) w.onEvents(mine, revision);
    }
    return revision;
  }

  private apply(events: readonly WatchEvent[], revision: number): void {
    for (const e of events) {
      const old = e.prev?.lease;
      if (old !== undefined) this.leases.get(old)?.keys.delete(e.kv.key);
      if (e.type === 'put') {
        this.kvs.set(e.kv.key, e.kv);
        if (e.kv.lease !== undefined) this.leases.get(e.kv.lease)?.keys.add(e.kv.key);
      } else {
        this.kvs.delete(e.kv.key);
      }
    }
    this.history.push({ revision, events: [...events] });
  }

  private async dropLease(id: string, lease: Lease): Promise<void> {
    this.leases.delete(id);
    const events = this.effects([...lease.keys].map((key) => ({ delete: { key } })));
    if (events.length > 0) await this.commit(events, id);
    else await this.append({ t: 'txn', rev: this.revision, puts: [], dels: [], revoked: id });
  }

  private async expireLeases(): Promise<void> {
    if (this.closed) return;
    const now = Date.now();
    for (const [id, lease] of this.leases) {
      if (lease.expiresAt <= now) await this.dropLease(id, lease).catch(() => undefined);
    }
  }

  private compactTo(revision: number): void {
    this.compactRevision = revision;
    while (this.history.length > 0 && this.history[0].revision <= revision) this.history.shift();
  }

  // ---- durability ----

  /** Resolves once what was asked before is durable. */
  private async durable(): Promise<void> {
    this.checkOpen();
    await this.flushing;
  }

  private append(entry: LogEntry): Promise<void> {
    const json = JSON.stringify(entry);
    const line = `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
    const written = new Promise<void>((done, failed) => this.pending.push({ line, done, failed }));
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    return written;
  }

  /** Writes what is pending, one fdatasync for all of it, until nothing is; every SNAPSHOT_EVERY lines a snapshot replaces the log. */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        if (this.linesInLog + batch.length > SNAPSHOT_EVERY) {
          // the state in memory holds every change of the batch, and nothing after it
          await writeFileAtomic(path.join(this.dir, 'store.snapshot'), JSON.stringify(this.snapshot()));
          await this.log.truncate(0);
          await this.log.datasync();
          this.linesInLog = 0;
        } else {
          await this.log.write(batch.map((p) => p.line).join(''));
          await this.log.datasync();
          this.linesInLog += batch.length;
        }
        for (const p of batch) p.done();
      } catch (err) {
        for (const p of batch) p.failed(err as Error);
      }
    }
  }

  private snapshot(): Snapshot {
    return {
      revision: this.revision,
      compactRevision: this.compactRevision,
      kvs: [...this.kvs.values()].map((kv) => ({ ...kv, value: Buffer.from(kv.value).toString('base64') })),
      leases: [...this.leases].map(([id, l]) => ({ id, ttlMs: l.ttlMs })),
    };
  }

  private async load(logFile: string): Promise<void> {
    const snapshotFile = path.join(this.dir, 'store.snapshot');
    if (existsSync(snapshotFile)) {
      const snap = JSON.parse(readFileSync(snapshotFile, 'utf8')) as Snapshot;
      this.revision = snap.revision;
      this.compactRevision = snap.compactRevision;
      for (const { id, ttlMs } of snap.leases) this.leases.set(id, { ttlMs, expiresAt: Date.now() + ttlMs, keys: new Set() });
      for (const kv of snap.kvs) {
        this.kvs.set(kv.key, { ...kv, value: Buffer.from(kv.value, 'base64') });
        if (kv.lease !== undefined) this.leases.get(kv.lease)?.keys.add(kv.key);
      }
      // the history before the snapshot is gone
      this.compactRevision = Math.max(this.compactRevision, snap.revision);
    }
    const text = readFileSync(logFile, 'utf8');
    let good = 0;
    for (const line of text.split('\n')) {
      if (line === '') break;
      const entry = parseLine(line);
      // a line cut by a crash, or damaged: it and what follows were never answered
      if (entry === undefined) break;
      this.replay(entry);
      good += Buffer.byteLength(line) + 1;
      this.linesInLog++;
    }
    if (good < Buffer.byteLength(text)) {
      await this.log.truncate(good);
      await this.log.datasync();
    }
    this.durableRevision = this.revision;
  }

  private replay(entry: LogEntry): void {
    if (entry.t === 'lease') {
      this.leases.set(entry.id, { ttlMs: entry.ttlMs, expiresAt: Date.now() + entry.ttlMs, keys: new Set() });
      return;
    }
    if (entry.t === 'compact') {
      if (entry.rev > this.compactRevision) this.compactTo(entry.rev);
      return;
    }
    if (entry.revoked !== undefined) this.leases.delete(entry.revoked);
    // a snapshot written before the log was emptied holds this change already
    if (entry.rev <= this.revision) return;
    const events = this.effects([
      ...entry.puts.map(([key, value, lease]) => ({ put: { key, value: Buffer.from(value, 'base64'), ...(lease !== undefined ? { lease } : {}) } })),
      ...entry.dels.map((key) => ({ delete: { key } })),
    ]);
    this.revision = entry.rev;
    this.apply(
      events.map((e) => ({ ...e, kv: { ...e.kv, modRevision: entry.rev, ...(e.type === 'put' && e.prev === undefined ? { createRevision: entry.rev } : {}) } })),
      entry.rev,
    );
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the cluster store is closed');
  }
}

function parseLine(line: string): LogEntry | undefined {
  const space = line.indexOf(' ');
  if (space !== 8) return undefined;
  const json = line.slice(space + 1);
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, space)) return undefined;
  try {
    return JSON.parse(json) as LogEntry;
  } catch {
    return undefined;
  }
}
