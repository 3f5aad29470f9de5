// The networks: one record each under <data-root>/network/networks/, loaded at start, saved before
// memory changes (persist, then publish), in the order they were made. A network being removed
// leaves the list at once, its record moved to <data-root>/network/removing/ until its bridge and
// rules are gone: a removal the daemon's end cut short is finished at the next start.
import { RecordDir } from './record-dir.js';
import type { NetworkRecord } from './network-record.js';

export class NetworkStore {
  private readonly dir: RecordDir<NetworkRecord>;
  private readonly removingDir: RecordDir<NetworkRecord>;
  private readonly byId = new Map<string, NetworkRecord>();
  private readonly removing = new Map<string, NetworkRecord>();

  constructor(dir: string, removingDir: string) {
    this.dir = new RecordDir(dir);
    this.removingDir = new RecordDir(removingDir);
    for (const record of this.removingDir.load()) this.removing.set(record.id, record);
    const loaded = this.dir.load().sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || a.created.localeCompare(b.created));
    for (const record of loaded) {
      // a removal cut between its two writes: it had begun
      if (this.removing.has(record.id)) this.dir.discard(record.id);
      else this.byId.set(record.id, record);
    }
  }

  all(): NetworkRecord[] {
    return [...this.byId.values()];
  }

  get(id: string): NetworkRecord | undefined {
    return this.byId.get(id);
  }

  /** In memory at once; resolves once durable, and undone if it can't be. */
  async put(record: NetworkRecord): Promise<void> {
    await this.dir.writeThrough(this.byId, record.id, record);
  }


  /** Takes the network out of the list at once; its record waits under removing/ until finishRemoval. */
  async beginRemoval(id: string): Promise<void> {
    const record = this.byId.get(id);
    if (record === undefined) return;
    this.removing.set(id, record);
    this.byId.delete(id);
    // the record under removing/ first: a crash between the two finds the removal begun
    await this.removingDir.write(id, record);
    await this.dir.remove(id);
  }

  async finishRemoval(id: string): Promise<void> {
    this.removing.delete(id);
    await this.removingDir.remove(id);
  }

  /** The networks whose removal began and did not finish (the daemon was killed meanwhile). */
  unfinishedRemovals(): NetworkRecord[] {
    return [...this.removing.values()];
  }
}
