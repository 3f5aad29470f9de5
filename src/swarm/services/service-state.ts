// Services and tasks in the cluster store, typed, through ClusterState's call (a store without a
// quorum is dockerd's "no leader" error). Writes compare versions as every swarm object's do; the
// orchestrator's and scheduler's batches go in one transaction each, so that a leader that loses
// its lease mid-pass leaves no half-made slot.
import { EngineError } from '../../errors.js';
import { decode, encode, updateOutOfSequence, type ClusterState, type Versioned } from '../cluster/cluster-state.js';
import type { Compare, Operation, Watch } from '../store/cluster-store.js';
import { ADDRESSES } from '../allocator/address-allocation.js';
import { endpointKeys } from '../allocator/endpoint-allocation.js';
import { PORTS } from '../allocator/port-allocation.js';
import { SERVICES, TASKS, serviceNameKey, type ServiceRecord, type TaskRecord } from './service-records.js';

/** `claim`: allocation keys the write takes (each must not exist yet); `release`: those it gives back. */
export type TaskWrite = { put: TaskRecord; version: number; claim?: string[] } | { delete: string; version: number; release?: string[] };

/** Allocation keys a service's write takes (each must not exist yet) and gives back. */
export interface Claims {
  claim: string[];
  release: string[];
}

export class ServiceState {
  constructor(readonly cluster: ClusterState) {}

  async services(): Promise<Array<Versioned<ServiceRecord>>> {
    return this.range<ServiceRecord>(SERVICES);
  }

  async service(id: string): Promise<Versioned<ServiceRecord> | undefined> {
    const kv = await this.cluster.call(() => this.cluster.store.get(SERVICES + id));
    return kv === undefined ? undefined : { value: decode(kv.value), version: kv.modRevision };
  }

  async tasks(): Promise<Array<Versioned<TaskRecord>>> {
    return this.range<TaskRecord>(TASKS);
  }

  /** The tasks now, and the store's revision they were read at: a watch from the next misses nothing. */
  async tasksAt(): Promise<{ tasks: TaskRecord[]; revision: number }> {
    const { kvs, revision } = await this.cluster.call(() => this.cluster.store.range(TASKS));
    return { tasks: kvs.map((kv) => decode<TaskRecord>(kv.value)), revision };
  }

  /** Calls `onTask` with each task written after `revision`. */
  watchTasks(revision: number, onTask: (task: TaskRecord) => void): Watch {
    return this.cluster.store.watch(TASKS, revision + 1, (events) => {
      for (const e of events) if (e.type === 'put') onTask(decode<TaskRecord>(e.kv.value));
    });
  }

  async task(id: string): Promise<Versioned<TaskRecord> | undefined> {
    const kv = await this.cluster.call(() => this.cluster.store.get(TASKS + id));
    return kv === undefined ? undefined : { value: decode(kv.value), version: kv.modRevision };
  }

  /** A new service, its name and its endpoint's allocations taken in the same transaction: false when either was taken. */
  async createService(record: ServiceRecord, claims: Claims): Promise<boolean> {
    const nameKey = serviceNameKey(record.spec.Name);
    const { succeeded } = await this.cluster.call(() =>
      this.cluster.store.txn(
        [{ key: nameKey, modRevision: 0 }, ...claimCompares(claims.claim)],
        [{ put: { key: nameKey, value: encode({ id: record.id }) } }, { put: { key: SERVICES + record.id, value: encode(record) } }, ...claimOps(claims, record.id)],
      ),
    );
    return succeeded;
  }

  /** Replaces a service's record at `version` with its allocations: false when the record or a claimed key changed meanwhile. */
  async putService(version: number, record: ServiceRecord, claims: Claims): Promise<boolean> {
    const { succeeded } = await this.cluster.call(() =>
      this.cluster.store.txn([{ key: SERVICES + record.id, modRevision: version }, ...claimCompares(claims.claim)], [{ put: { key: SERVICES + record.id, value: encode(record) } }, ...claimOps(claims, record.id)]),
    );
    return succeeded;
  }

  /** Removes a service, its name and its endpoint's allocations; its tasks are the orchestrator's to shut down and reap. */
  async deleteService(record: ServiceRecord, version: number): Promise<void> {
    await this.commit(
      [{ key: SERVICES + record.id, modRevision: version }],
      [{ delete: { key: SERVICES + record.id } }, { delete: { key: serviceNameKey(record.spec.Name) } }, ...endpointKeys(record.endpoint).map((key) => ({ delete: { key } }))],
    );
  }

  /** The allocation keys held now (ports and addresses). */
  async heldAllocations(): Promise<Set<string>> {
    const ranges = await Promise.all([PORTS, ADDRESSES].map((prefix) => this.cluster.call(() => this.cluster.store.range(prefix))));
    return new Set(ranges.flatMap((r) => r.kvs.map((kv) => kv.key)));
  }

  /** Writes tasks together, each at the version read (0: new); false when any changed meanwhile. */
  async writeTasks(writes: readonly TaskWrite[], service?: { version: number; record: ServiceRecord }): Promise<boolean> {
    if (writes.length === 0 && service === undefined) return true;
    const compares: Compare[] = writes.flatMap((w) => [{ key: TASKS + ('put' in w ? w.put.id : w.delete), modRevision: w.version }, ...claimCompares('put' in w ? (w.claim ?? []) : [])]);
    const ops: Operation[] = writes.flatMap((w) =>
      'put' in w ? [{ put: { key: TASKS + w.put.id, value: encode(w.put) } }, ...claimOps({ claim: w.claim ?? [], release: [] }, w.put.id)] : [{ delete: { key: TASKS + w.delete } }, ...claimOps({ claim: [], release: w.release ?? [] }, w.delete)],
    );
    if (service !== undefined) {
      compares.push({ key: SERVICES + service.record.id, modRevision: service.version });
      ops.push({ put: { key: SERVICES + service.record.id, value: encode(service.record) } });
    }
    const { succeeded } = await this.cluster.call(() => this.cluster.store.txn(compares, ops));
    return succeeded;
  }

  /** Calls `onChange` after each change of the services or tasks. */
  watch(onChange: () => void): Watch[] {
    return [SERVICES, TASKS].map((prefix) => this.cluster.store.watch(prefix, 0, () => onChange()));
  }

  private async range<T>(prefix: string): Promise<Array<Versioned<T>>> {
    const { kvs } = await this.cluster.call(() => this.cluster.store.range(prefix));
    return kvs.map((kv) => ({ value: decode<T>(kv.value), version: kv.modRevision }));
  }

  private async commit(compares: Compare[], ops: Operation[]): Promise<void> {
    const result = await this.cluster.call(() => this.cluster.store.txn(compares, ops));
    if (!result.succeeded) throw updateOutOfSequence();
  }
}

function claimCompares(keys: readonly string[]): Compare[] {
  return keys.map((key) => ({ key, modRevision: 0 }));
}

/** A claimed key names its holder. */
function claimOps(claims: Claims, holder: string): Operation[] {
  return [...claims.claim.map((key) => ({ put: { key, value: encode({ holder }) } })), ...claims.release.map((key) => ({ delete: { key } }))];
}

export function serviceNotFound(input: string): EngineError {
  return new EngineError('notFound', `service ${input} not found`);
}
