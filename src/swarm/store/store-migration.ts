// The move of a swarm's state from its one manager's LocalStore to etcd, when a second manager
// comes: every key that outlives its writer (not those on leases: sessions and the leader's key
// are made again by their holders) is copied, in batches within etcd's limit on a transaction's
// operations. The LocalStore's last revision is the offset etcd's revisions read with from then
// on (offset-store.ts), so that Version.Index goes on rising: the managers keep it with their
// etcd settings. A move cut short is started again on an empty etcd.
import type { ClusterStore } from './cluster-store.js';

/** etcd's --max-txn-ops default is 128 */
const BATCH = 100;

/** Copies `from` into the empty etcd `to`; the offset its revisions must read with. */
export async function moveToEtcd(from: ClusterStore, to: ClusterStore): Promise<number> {
  const { kvs, revision } = await from.range('/');
  const lasting = kvs.filter((kv) => kv.lease === undefined);
  await to.txn([], [{ deletePrefix: { prefix: '/' } }]);
  for (let i = 0; i < lasting.length; i += BATCH) {
    await to.txn([], lasting.slice(i, i + BATCH).map((kv) => ({ put: { key: kv.key, value: kv.value } })));
  }
  return revision;
}
