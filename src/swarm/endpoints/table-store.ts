// The network tables in the cluster store (docs/design/swarm.md, "Endpoint records"):
// /net/<network id>/<table>/<key> → the entry's bytes as its owner wrote them. A node's entries are
// written by a manager on the node's behalf, on the lease of the node's session: when the session
// lapses (the node is gone) its entries go with it, as 20.10 drops a failed node's entries, and a
// node that comes back publishes again all it still runs. Each publication is the node's whole set:
// what it no longer has is deleted in the same transaction.
import { EngineError } from '../../errors.js';
import type { ClusterState } from '../cluster/cluster-state.js';
import type { Operation } from '../store/cluster-store.js';
import { ENDPOINT_TABLE, PEER_TABLE, type TableName, type TablesSnapshot } from './network-tables.js';

export const TABLES_PREFIX = '/net/';

export interface OwnedEntry {
  networkId: string;
  table: TableName;
  key: string;
  value: Uint8Array;
}

function entryKey(e: Pick<OwnedEntry, 'networkId' | 'table' | 'key'>): string {
  return `${TABLES_PREFIX}${e.networkId}/${e.table}/${e.key}`;
}

function parseKey(key: string): Pick<OwnedEntry, 'networkId' | 'table' | 'key'> | undefined {
  const [networkId, table, entry] = key.slice(TABLES_PREFIX.length).split('/');
  if (networkId === undefined || entry === undefined || (table !== ENDPOINT_TABLE && table !== PEER_TABLE)) return undefined;
  return { networkId, table, key: entry };
}

/** Makes the node's entries in the store exactly `entries`, on its session's lease. */
export async function publishNodeEntries(cluster: ClusterState, nodeId: string, entries: readonly OwnedEntry[]): Promise<void> {
  const session = await cluster.session(nodeId);
  if (session?.lease === undefined) throw new EngineError('unavailable', `node ${nodeId} has no session`);
  const lease = session.lease;
  const { kvs } = await cluster.call(() => cluster.store.range(TABLES_PREFIX));
  const mine = new Map(kvs.filter((kv) => kv.lease === lease).map((kv) => [kv.key, kv.value]));
  const ops: Operation[] = [];
  const wanted = new Set<string>();
  for (const e of entries) {
    const key = entryKey(e);
    wanted.add(key);
    const had = mine.get(key);
    if (had === undefined || !Buffer.from(had).equals(e.value)) ops.push({ put: { key, value: e.value, lease } });
  }
  for (const key of mine.keys()) if (!wanted.has(key)) ops.push({ delete: { key } });
  if (ops.length > 0) await cluster.call(() => cluster.store.txn([], ops));
}

/** The tables of these networks, every node's entries, each with the address of the node that wrote it. */
export async function tablesOf(cluster: ClusterState, networkIds: ReadonlySet<string>): Promise<TablesSnapshot> {
  const snapshot: TablesSnapshot = {};
  for (const id of networkIds) snapshot[id] = {};
  const [{ kvs }, sessions, nodes] = await Promise.all([cluster.call(() => cluster.store.range(TABLES_PREFIX)), cluster.sessions(), cluster.nodes()]);
  const nodeOfLease = new Map([...sessions].map(([nodeId, s]) => [s.lease, nodeId]));
  const addrOf = new Map(nodes.map((n) => [n.value.id, n.value.status.addr]));
  for (const kv of kvs) {
    const at = parseKey(kv.key);
    if (at === undefined || !networkIds.has(at.networkId)) continue;
    const tables = snapshot[at.networkId]!;
    const owner = addrOf.get(nodeOfLease.get(kv.lease) ?? '') ?? '';
    (tables[at.table] ??= []).push({ key: at.key, value: kv.value, owner });
  }
  return snapshot;
}
