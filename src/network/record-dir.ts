// A directory of JSON records, one file per object named by its ID: written atomically
// (store/atomic-file.ts), removed with the directory synced, so a crash leaves each record whole or
// absent. What an interrupted write left (a temporary file) goes at load.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { removeFileDurably, writeFileAtomic } from '../store/atomic-file.js';

export class RecordDir<T> {
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  load(): T[] {
    const records: T[] = [];
    for (const name of readdirSync(this.dir)) {
      const file = path.join(this.dir, name);
      if (name.startsWith('.')) rmSync(file, { force: true });
      else if (name.endsWith('.json')) records.push(JSON.parse(readFileSync(file, 'utf8')) as T);
    }
    return records;
  }

  /** Resolves once the record is durable. */
  async write(id: string, record: T): Promise<void> {
    await writeFileAtomic(this.fileOf(id), JSON.stringify(record));
  }

  /**
   * Puts the record in `byId` at once (what the next allocation reads) and writes it; resolves
   * once it is durable, and puts back what `byId` held if it can't be.
   */
  async writeThrough(byId: Map<string, T>, id: string, record: T): Promise<void> {
    const previous = byId.get(id);
    byId.set(id, record);
    try {
      await this.write(id, record);
    } catch (err) {
      if (byId.get(id) === record) {
        if (previous === undefined) byId.delete(id);
        else byId.set(id, previous);
      }
      throw err;
    }
  }

  /** Resolves once the record's removal is durable (after the writes of it asked before). */
  async remove(id: string): Promise<void> {
    await removeFileDurably(this.fileOf(id));
  }

  /** A removal at load, before anyone writes. */
  discard(id: string): void {
    rmSync(this.fileOf(id), { force: true });
  }

  private fileOf(id: string): string {
    // a swarm network's placeholder has the swarm's ID: 25 characters of base 36
    if (!/^(?:[0-9a-f]{64}|[0-9a-z]{25})$/.test(id)) throw new Error(`not a record ID: ${id}`);
    return path.join(this.dir, `${id}.json`);
  }
}
