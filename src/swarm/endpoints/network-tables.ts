// A node's copy of the swarm's network tables, with NetworkDB's shape (libnetwork networkdb):
// entries by table, network and key, each value the bytes the owner wrote (an EndpointRecord in
// `endpoint_table`, a PeerRecord in `overlay_peer_table`), and watches that get every change with
// the value before and after (a create has no `prev`, a delete no `value`), as NetworkDB's
// WatchEvent. Here the entries come whole from the dispatcher (the tables of the networks the
// node has tasks on) and each new snapshot is turned into those events; another transport could
// feed the same table without its consumers knowing.

export const ENDPOINT_TABLE = 'endpoint_table';
export const PEER_TABLE = 'overlay_peer_table';
export type TableName = typeof ENDPOINT_TABLE | typeof PEER_TABLE;

export interface TableEntry {
  key: string;
  value: Uint8Array;
  /** the address of the node that wrote it */
  owner?: string;
}

/** The entries of every table of every network given, as the dispatcher sends them. */
export type TablesSnapshot = Record<string, Partial<Record<TableName, TableEntry[]>>>;

export interface TableEvent {
  table: TableName;
  networkId: string;
  key: string;
  value?: Uint8Array;
  prev?: Uint8Array;
}

type Watcher = (event: TableEvent) => void;

export class NetworkTables {
  /** table → network → key → value */
  private readonly entries = new Map<TableName, Map<string, Map<string, Uint8Array>>>();
  /** the node each entry came from, by key */
  private readonly owners = new Map<string, string>();
  private readonly watchers = new Map<TableName, Set<Watcher>>();

  /** The entries of `table` on `networkId`, by key. */
  getTableByNetwork(table: TableName, networkId: string): ReadonlyMap<string, Uint8Array> {
    return this.entries.get(table)?.get(networkId) ?? new Map();
  }

  /** Whether the node holds the tables of `networkId` (it has a task on the network). */
  hasNetwork(networkId: string): boolean {
    return [...this.entries.values()].some((byNetwork) => byNetwork.has(networkId));
  }

  /** The address of the node that wrote the entry, '' when unknown. */
  ownerOf(key: string): string {
    return this.owners.get(key) ?? '';
  }

  /** Calls `watcher` with each change of `table`, on any network; the cancel function. */
  watch(table: TableName, watcher: Watcher): () => void {
    const set = this.watchers.get(table) ?? new Set();
    this.watchers.set(table, set);
    set.add(watcher);
    return () => set.delete(watcher);
  }

  /**
   * Takes a whole snapshot: what it adds, changes or lacks against what the node had becomes
   * create, update and delete events. A network the snapshot leaves out is left entirely (the node
   * has no task on it any more), as a node leaving a network's gossip group forgets its entries.
   */
  apply(snapshot: TablesSnapshot): void {
    for (const table of [ENDPOINT_TABLE, PEER_TABLE] as const) {
      const byNetwork = this.entries.get(table) ?? new Map<string, Map<string, Uint8Array>>();
      this.entries.set(table, byNetwork);
      for (const [networkId, known] of byNetwork) {
        if (snapshot[networkId] !== undefined) continue;
        byNetwork.delete(networkId);
        for (const [key, prev] of known) this.emit({ table, networkId, key, prev });
      }
      for (const [networkId, tables] of Object.entries(snapshot)) {
        const known = byNetwork.get(networkId) ?? new Map<string, Uint8Array>();
        byNetwork.set(networkId, known);
        const now = new Map((tables[table] ?? []).map((e) => [e.key, e.value]));
        for (const [key, prev] of known) {
          if (now.has(key)) continue;
          known.delete(key);
          this.owners.delete(key);
          this.emit({ table, networkId, key, prev });
        }
        for (const e of tables[table] ?? []) if (e.owner !== undefined) this.owners.set(e.key, e.owner);
        for (const [key, value] of now) {
          const prev = known.get(key);
          if (prev !== undefined && Buffer.from(prev).equals(value)) continue;
          known.set(key, value);
          this.emit({ table, networkId, key, value, ...(prev !== undefined ? { prev } : {}) });
        }
      }
    }
  }

  private emit(event: TableEvent): void {
    for (const watcher of this.watchers.get(event.table) ?? []) watcher(event);
  }
}
