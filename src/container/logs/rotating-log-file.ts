// A log file that rotates as dockerd's loggerutils.LogFile does: before an entry is written, a file
// that has reached max-size becomes <file>.1, the older ones shift up to <file>.<max-file - 1> (the
// oldest goes) and a new file starts; with compress, <file>.1 is gzipped to <file>.1.gz meanwhile.
// With max-file 1 the file is emptied instead. A file so ends past max-size by at most one entry.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { LogRotation } from './log-options.js';

export class RotatingLogFile {
  private sizeBytes = 0;
  /** the gzip of the last rotated file; the next rotation waits for it, so files never shift under it */
  private compressing: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    private fh: FileHandle,
    private readonly rotation: LogRotation | undefined,
  ) {}

  /** Opens the file for appending (a run after a restart goes on where the last one stopped). */
  static async open(file: string, rotation: LogRotation | undefined): Promise<RotatingLogFile> {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const fh = await open(file, 'a', 0o640);
    const log = new RotatingLogFile(file, fh, rotation);
    log.sizeBytes = (await fh.stat()).size;
    return log;
  }

  /** Writes the entries (the batch's bytes, each ending at its offset in `ends`), rotating before any that finds the file full. */
  async write(data: Buffer, ends: readonly number[]): Promise<void> {
    let from = 0;
    if (this.rotation !== undefined) {
      let entryStart = 0;
      for (const end of ends) {
        if (this.sizeBytes + (entryStart - from) >= this.rotation.maxSizeBytes) {
          await this.append(data.subarray(from, entryStart));
          from = entryStart;
          await this.rotate();
        }
        entryStart = end;
      }
    }
    await this.append(data.subarray(from));
  }

  async close(): Promise<void> {
    await this.fh.close();
    await this.compressing;
  }

  private async append(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    await this.fh.write(bytes);
    this.sizeBytes += bytes.length;
  }

  private async rotate(): Promise<void> {
    const { maxFiles, compress } = this.rotation as LogRotation;
    await this.fh.close();
    if (maxFiles > 1) {
      await this.compressing;
      const rotated = (i: number) => `${this.file}.${i}${compress ? '.gz' : ''}`;
      await rm(rotated(maxFiles - 1), { force: true });
      for (let i = maxFiles - 1; i > 1; i--) await renameIfExists(rotated(i - 1), rotated(i));
      if (compress) {
        // gzipped from a name of its own while the new file fills; a reader takes `.1` as rotated too
        await rename(this.file, `${this.file}.1`);
        this.compressing = gzipFile(`${this.file}.1`).catch(() => {});
      } else {
        await rename(this.file, rotated(1));
      }
    }
    this.fh = await open(this.file, 'w', 0o640);
    this.sizeBytes = 0;
  }
}

async function renameIfExists(from: string, to: string): Promise<void> {
  await rename(from, to).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/** file → file.gz, written aside and renamed, then the plain one removed (a reader prefers the plain one while both exist). */
async function gzipFile(file: string): Promise<void> {
  const tmp = `${file}.gz.tmp`;
  await pipeline(createReadStream(file), createGzip(), createWriteStream(tmp, { mode: 0o640 }));
  await rename(tmp, `${file}.gz`);
  await rm(file, { force: true });
}
