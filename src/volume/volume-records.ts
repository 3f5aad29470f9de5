// The volumes' records: <dataRoot>/volume-records/<name>.json, one atomic write per change (a crash
// leaves each whole or absent). A volume name is one safe path component (volume-name.ts), so it
// names its file. A copy-up under way is marked by <name>.copy-up beside it: a volume whose mark
// outlived a crash was filled only in part.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fsyncPath, removeFileDurably, writeFileAtomic } from '../store/atomic-file.js';
import type { VolumeRecord } from './volume-record.js';

const RECORD = '.json';
const COPY_UP_MARK = '.copy-up';

export class VolumeRecords {
  private readonly dir: string;

  constructor(dataRoot: string) {
    this.dir = path.join(dataRoot, 'volume-records');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /** The records, and the names whose copy-up was interrupted. Leftover temporary files go. */
  load(): { records: VolumeRecord[]; interruptedCopyUps: string[] } {
    const records: VolumeRecord[] = [];
    const interruptedCopyUps: string[] = [];
    for (const file of readdirSync(this.dir)) {
      if (file.startsWith('.')) rmSync(path.join(this.dir, file), { force: true });
      else if (file.endsWith(RECORD)) records.push(JSON.parse(readFileSync(path.join(this.dir, file), 'utf8')) as VolumeRecord);
      else if (file.endsWith(COPY_UP_MARK)) interruptedCopyUps.push(file.slice(0, -COPY_UP_MARK.length));
    }
    return { records, interruptedCopyUps };
  }

  /** Resolves once the record is durable. */
  async write(record: VolumeRecord): Promise<void> {
    await writeFileAtomic(path.join(this.dir, record.name + RECORD), JSON.stringify(record));
  }

  /** Resolves once the removal is durable (after the writes of the record asked before). */
  async remove(name: string): Promise<void> {
    await removeFileDurably(path.join(this.dir, name + RECORD));
  }

  /** Whether a copy-up into the volume was begun and never finished. */
  copyUpMarked(name: string): boolean {
    return existsSync(path.join(this.dir, name + COPY_UP_MARK));
  }

  /** Marks a copy-up as begun, durably, before the first file is copied. */
  async markCopyUp(name: string): Promise<void> {
    await writeFile(path.join(this.dir, name + COPY_UP_MARK), '');
    await fsyncPath(this.dir);
  }

  /**
   * The copy-up is whole: the mark's removal is its commit. Not synced, which would flush the
   * copied files with it: a journaling filesystem commits in order, so a mark a machine's crash
   * brings back means nothing written to the volume since was made durable either.
   */
  clearCopyUp(name: string): void {
    rmSync(path.join(this.dir, name + COPY_UP_MARK), { force: true });
  }
}
