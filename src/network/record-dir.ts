// A directory of JSON records, one file per object named by its ID: written atomically
// (store/atomic-file.ts), removed with the directory synced, so a crash leaves each record whole or
// absent. What an interrupted write left (a temporary file) goes at load.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';

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

  write(id: string, record: T): void {
    writeFileAtomic(this.fileOf(id), JSON.stringify(record));
  }

  remove(id: string): void {
    rmSync(this.fileOf(id), { force: true });
    const fd = openSync(this.dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private fileOf(id: string): string {
    if (!/^[0-9a-f]{64}$/.test(id)) throw new Error(`not a record ID: ${id}`);
    return path.join(this.dir, `${id}.json`);
  }
}
