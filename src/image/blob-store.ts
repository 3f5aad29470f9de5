// Blobs by sha256 digest: image configs and layer tars. Written to staging and renamed into place;
// verified against their digest whenever they are read back whole.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EngineError, invalidParameter } from '../errors.js';
import { removeTemporaryFiles, fsyncPath, writeFileAtomic } from '../store/atomic-file.js';
import type { Staging } from '../store/staging.js';
import { digestHex, isDigest, sha256Digest, type Digest } from './digest.js';

export class BlobStore {
  constructor(
    private readonly root: string,
    private readonly staging: Staging,
  ) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    removeTemporaryFiles(root);
  }

  path(digest: Digest): string {
    return path.join(this.root, digestHex(digest));
  }

  has(digest: Digest): boolean {
    return existsSync(this.path(digest));
  }

  sizeOf(digest: Digest): number {
    return statSync(this.path(digest)).size;
  }

  /** Resolves with the blob's digest once it is durable. */
  async putBytes(data: Uint8Array): Promise<Digest> {
    const digest = sha256Digest(data);
    if (!this.has(digest)) await writeFileAtomic(this.path(digest), data, 0o600);
    return digest;
  }

  /** Streams into a blob; with `expected`, a different digest is refused and nothing is kept. */
  async putStream(source: Readable, expected?: Digest, signal?: AbortSignal): Promise<{ digest: Digest; sizeBytes: number }> {
    const tmp = this.staging.newFile('blob');
    const hash = createHash('sha256');
    let sizeBytes = 0;
    source.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      sizeBytes += chunk.length;
    });
    try {
      await pipeline(source, createWriteStream(tmp, { mode: 0o600 }), { signal });
      return { digest: await this.commitFile(tmp, hash, expected), sizeBytes };
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Takes a file on the same filesystem (a staged upload) into the store by renaming it, after
   * hashing it; with `expected`, a different digest is refused and the file left where it was.
   */
  async adoptFile(file: string, expected?: Digest, signal?: AbortSignal): Promise<{ digest: Digest; sizeBytes: number }> {
    const hash = createHash('sha256');
    let sizeBytes = 0;
    for await (const chunk of createReadStream(file, { signal })) {
      hash.update(chunk as Buffer);
      sizeBytes += (chunk as Buffer).length;
    }
    return { digest: await this.commitFile(file, hash, expected), sizeBytes };
  }

  /** Takes a staged file whose digest its writer computed and checked (a download) into the store. */
  async adoptHashed(file: string, digest: Digest): Promise<void> {
    await fsyncPath(file);
    renameSync(file, this.path(digest));
  }

  /** Checks the digest of a file fully written and hashed, makes it durable, and renames it into place. */
  private async commitFile(file: string, hash: Hash, expected: Digest | undefined): Promise<Digest> {
    const digest: Digest = `sha256:${hash.digest('hex')}`;
    if (expected !== undefined && digest !== expected) {
      throw invalidParameter(`content digest ${digest} does not match the expected ${expected}`);
    }
    await fsyncPath(file);
    // synchronous, as every rename into the store (see atomic-file.ts): the caller leases the blob before garbage collection can see it
    renameSync(file, this.path(digest));
    return digest;
  }

  /** The whole blob, checked against its digest (a corrupted store is an error, never silent). */
  readVerified(digest: Digest): Buffer {
    const data = readFileSync(this.path(digest));
    if (sha256Digest(data) !== digest) throw new EngineError('system', `blob ${digest} is corrupted: its content no longer matches its digest`);
    return data;
  }

  openRead(digest: Digest): Readable {
    return createReadStream(this.path(digest));
  }

  list(): Digest[] {
    return readdirSync(this.root)
      .map((name) => `sha256:${name}`)
      .filter(isDigest);
  }

  delete(digest: Digest): void {
    this.staging.discard(this.path(digest));
  }
}
