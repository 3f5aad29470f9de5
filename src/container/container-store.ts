// The containers' records: one JSON file each, written atomically (store/atomic-file.ts) before a
// change is acknowledged; a new container is in memory once its record is durable, a change to one
// is in memory at once (the record is changed in place) and saved before the answer. And the
// lookups dockerd offers: full ID, name, or a unique ID prefix.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { EngineError, invalidParameter } from '../errors.js';
import { removeFileDurably, removeTemporaryFiles, writeFileAtomic } from '../store/atomic-file.js';
import type { ContainerPaths } from './container-paths.js';
import type { ContainerRecord } from './container-record.js';
import { NameRegistry } from './container-names.js';

const ID_PATTERN = /^[0-9a-f]{64}$/;

export class NoSuchContainerError extends EngineError {
  constructor(ref: string) {
    super('notFound', `No such container: ${ref}`);
    this.name = 'NoSuchContainerError';
  }
}

export class ContainerStore {
  private readonly paths: ContainerPaths;
  private readonly records = new Map<string, ContainerRecord>();
  readonly names = new NameRegistry();

  constructor(paths: ContainerPaths) {
    this.paths = paths;
    mkdirSync(paths.containersRoot, { recursive: true, mode: 0o710 });
  }

  /** Reads every record; a directory without one is what an interrupted create left. */
  load(): { loaded: ContainerRecord[]; incomplete: string[] } {
    const incomplete: string[] = [];
    for (const id of readdirSync(this.paths.containersRoot)) {
      if (!ID_PATTERN.test(id)) continue;
      removeTemporaryFiles(this.paths.dir(id));
      let record: ContainerRecord;
      try {
        record = JSON.parse(readFileSync(this.paths.record(id), 'utf8')) as ContainerRecord;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        incomplete.push(id);
        continue;
      }
      this.records.set(id, record);
      this.names.reserve(record.name, id);
    }
    return { loaded: [...this.records.values()], incomplete };
  }

  /** Writes a new container's record, then makes it the one in memory; resolves once it is durable. */
  async add(record: ContainerRecord): Promise<void> {
    await mkdir(this.paths.dir(record.id), { recursive: true, mode: 0o710 });
    await writeFileAtomic(this.paths.record(record.id), JSON.stringify(record));
    this.records.set(record.id, record);
  }

  /**
   * Writes the record as it is now (the one in memory, changed in place); resolves once it is
   * durable, which is what an answer to the client waits for. A container deleted meanwhile stays
   * deleted: a save that comes late (a health check's) writes nothing.
   */
  async save(record: ContainerRecord): Promise<void> {
    if (this.records.get(record.id) !== record) return;
    await writeFileAtomic(this.paths.record(record.id), JSON.stringify(record));
  }

  /**
   * Forgets the container and removes its directory: the record first, once its writes have
   * landed (a directory without one is an interrupted create, swept at load), then the rest.
   */
  async delete(record: ContainerRecord): Promise<void> {
    this.records.delete(record.id);
    this.names.release(record.name);
    await removeFileDurably(this.paths.record(record.id));
    await rm(this.paths.dir(record.id), { recursive: true, force: true });
  }

  all(): ContainerRecord[] {
    return [...this.records.values()];
  }

  count(): number {
    return this.records.size;
  }

  byId(id: string): ContainerRecord | undefined {
    return this.records.get(id);
  }

  /** dockerd's lookup order: the full ID, the name, then a unique ID prefix; NoSuchContainer otherwise. */
  resolve(ref: string): ContainerRecord {
    const found = this.find(ref);
    if (found === undefined) throw new NoSuchContainerError(ref);
    return found;
  }

  /** As resolve, but undefined when nothing matches (an ambiguous prefix still throws). */
  find(ref: string): ContainerRecord | undefined {
    const exact = this.records.get(ref);
    if (exact) return exact;
    const byName = this.names.idOf(ref.startsWith('/') ? ref : `/${ref}`);
    if (byName !== undefined) {
      const r = this.records.get(byName);
      if (r) return r;
    }
    if (ref !== '' && /^[0-9a-f]+$/.test(ref)) {
      let found: ContainerRecord | undefined;
      for (const [id, r] of this.records) {
        if (!id.startsWith(ref)) continue;
        if (found) throw invalidParameter(`multiple IDs found with provided prefix: ${ref}`);
        found = r;
      }
      return found;
    }
    return undefined;
  }
}
