// The networks: one record each under <data-root>/network/networks/, loaded at start, saved before
// memory changes (persist, then publish), in the order they were made.
import { RecordDir } from './record-dir.js';
import type { NetworkRecord } from './network-record.js';

export class NetworkStore {
  private readonly dir: RecordDir<NetworkRecord>;
  private readonly byId = new Map<string, NetworkRecord>();

  constructor(dir: string) {
    this.dir = new RecordDir(dir);
    const loaded = this.dir.load().sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || a.created.localeCompare(b.created));
    for (const record of loaded) this.byId.set(record.id, record);
  }

  all(): NetworkRecord[] {
    return [...this.byId.values()];
  }

  get(id: string): NetworkRecord | undefined {
    return this.byId.get(id);
  }

  put(record: NetworkRecord): void {
    this.dir.write(record.id, record);
    this.byId.set(record.id, record);
  }

  delete(id: string): void {
    this.dir.remove(id);
    this.byId.delete(id);
  }
}
