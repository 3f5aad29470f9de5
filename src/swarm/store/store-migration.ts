// The move of a swarm's state from its one manager's LocalStore to etcd, when a second manager
// comes: every key that outlives its writer (not those on leases: sessions and the leader's key
// are made again by their holders) is copied, in batches within etcd's limit on a transaction's
// operations, and the LocalStore's revision written last as the offset its revisions read with
// from then on (offset-store.ts), so that Version.Index goes on rising. A move cut short leaves no
// offset: the next try starts from an empty etcd again.
import type { ClusterStore } from './cluster-store.js';
import { OffsetStore } from './offset-store.js';

const OFFSET_KEY = '/meta/revision-offset';
/** etcd's --max-txn-ops default is 128 */
const BATCH = 100;

/** Copies `from` into the empty etcd `to`. */
export async function moveToEtcd(from: ClusterStore, to: ClusterStore): Promise<void> {
  const { kvs, revision } = await from.range('/');
  const lasting = kvs.filter((kv) => kv.lease === undefined);
  await to.txn([], [{ deletePrefix: { prefix: '/' } }]);
  for (let i = 0; i < lasting.length; i += BATCH) {
    await to.txn([], lasting.slice(i, i + BATCH).map((kv) => ({ put: { key: kv.key, value: kv.value } })));
  }
  await to.txn([], [{ put: { key: OFFSET_KEY, value: Buffer.from(String(revision)) } }]);
}

/** The swarm's store in etcd, its revisions raised by the offset of a move (none: 0). */
export async function swarmStoreIn(etcd: ClusterStore): Promise<ClusterStore> {
  const offset = await etcd.get(OFFSET_KEY);
  return new OffsetStore(etcd, offset === undefined ? 0 : Number(Buffer.from(offset.value).toString('utf8')));
}
