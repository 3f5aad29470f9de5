// The outer tar of `docker save` or an OCI layout, staged for reading in any order (manifest.json
// comes last in Docker's archives). Entry names from the archive never become paths on disk: each
// file is stored under a sequence number and symlinks are kept as a map, so `..`, absolute names and
// link tricks in the archive have nothing to act on.
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract } from 'tar-stream';
import { invalidParameter } from '../../errors.js';

const MAX_LINK_HOPS = 16;

export class StagedArchive {
  private readonly files = new Map<string, string>();
  private readonly links = new Map<string, string>();

  private constructor() {}

  /** Reads the whole archive into `dir` (an empty staging directory). */
  static async stage(source: Readable, dir: string, signal?: AbortSignal): Promise<StagedArchive> {
    const archive = new StagedArchive();
    const ex = extract();
    let n = 0;
    ex.on('entry', (header, stream, next) => {
      const done = (err?: unknown) => (err ? next(err as Error) : next());
      let name: string;
      try {
        name = cleanName(header.name);
      } catch (err) {
        stream.resume();
        return done(err);
      }
      if (header.type === 'file' || header.type === 'contiguous-file') {
        const file = path.join(dir, String(n++));
        archive.files.set(name, file);
        pipeline(stream, createWriteStream(file, { mode: 0o600 }), { signal }).then(() => done(), done);
        return;
      }
      if (header.type === 'symlink' && header.linkname) archive.links.set(name, path.posix.join(path.posix.dirname(name), header.linkname));
      stream.resume();
      stream.on('end', () => done());
    });
    try {
      await pipeline(source, ex, { signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw invalidParameter(`invalid image archive: ${(err as Error).message}`, err);
    }
    return archive;
  }

  has(name: string): boolean {
    return this.resolve(name) !== undefined;
  }

  readText(name: string): string {
    return this.read(name).toString('utf8');
  }

  read(name: string): Buffer {
    return readFileSync(this.require(name));
  }

  open(name: string): Readable {
    return createReadStream(this.require(name));
  }

  /** Where the entry's content was staged: the caller may take the file away (by renaming it). */
  localFile(name: string): string {
    return this.require(name);
  }

  private require(name: string): string {
    const file = this.resolve(name);
    if (file === undefined) throw invalidParameter(`invalid image archive: ${name} is missing`);
    return file;
  }

  /** Follows the archive's own symlinks (Docker 25+ archives link legacy paths to blobs/). */
  private resolve(name: string): string | undefined {
    let current = safeClean(name);
    for (let hop = 0; hop <= MAX_LINK_HOPS && current !== undefined; hop++) {
      const file = this.files.get(current);
      if (file !== undefined) return file;
      const target = this.links.get(current);
      current = target === undefined ? undefined : safeClean(target);
    }
    return undefined;
  }
}

/** `./a/b` and `/a/b` → `a/b`; a name that climbs out of the archive is refused. */
function cleanName(name: string): string {
  const cleaned = path.posix.normalize(`/${name}`).slice(1).replace(/\/$/, '');
  if (name.split('/').includes('..') && path.posix.normalize(name).startsWith('..')) {
    throw invalidParameter(`invalid image archive: the entry ${JSON.stringify(name)} points outside the archive`);
  }
  return cleaned;
}

function safeClean(name: string): string | undefined {
  const normalized = path.posix.normalize(name);
  return normalized.startsWith('..') ? undefined : path.posix.normalize(`/${normalized}`).slice(1);
}
