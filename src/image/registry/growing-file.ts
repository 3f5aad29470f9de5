// A file being downloaded that others read while it grows: a reader gets the bytes written so far,
// waits for more, and ends when the writer says the file is whole (or fails with the writer's
// error). So a layer is unpacked as it arrives, while the next ones download beside it.
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';

const READ_CHUNK = 1024 * 1024;

export class GrowingFile {
  private written = 0;
  private state: 'growing' | 'whole' | { failed: Error } = 'growing';
  private wake: Array<() => void> = [];
  private readonly out;
  private readonly opened: Promise<void>;

  constructor(readonly path: string) {
    this.out = createWriteStream(path, { mode: 0o600, highWaterMark: 4 * 1024 * 1024 });
    // a failed write fails the readers; one after a failure is not made
    this.out.on('error', (err) => this.fail(err));
    // the writer opens (and so creates) the file asynchronously: readers wait for it
    this.opened = once(this.out, 'ready').then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Appends a chunk: readers see it once it is in the file. Resolves at once unless the file's
   * buffer is full, so the download keeps flowing while earlier chunks are written.
   */
  append(chunk: Buffer): Promise<void> {
    if (typeof this.state === 'object') return Promise.reject(this.state.failed);
    const more = this.out.write(chunk, (err) => {
      if (err) return this.fail(err);
      this.written += chunk.length;
      this.notify();
    });
    if (more) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('close', done);
        if (typeof this.state === 'object') reject(this.state.failed);
        else resolve();
      };
      this.out.once('drain', done);
      this.out.once('close', done);
    });
  }

  /**
   * The file is whole: readers end at its last byte. Then it is flushed to disk, in the thread
   * pool while the unpack goes on, so the blob store's own fsync when it adopts the file is quick.
   */
  async finish(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    this.state = 'whole';
    this.notify();
    const written = await open(this.path, 'r');
    try {
      await written.sync();
    } finally {
      await written.close();
    }
  }

  fail(err: Error): void {
    if (this.state !== 'growing') return;
    this.state = { failed: err };
    this.out.destroy();
    this.notify();
  }

  /** The file's bytes from the start, as they come. */
  reader(): Readable {
    return Readable.from(this.chunks(), { objectMode: false });
  }

  private async *chunks(): AsyncGenerator<Buffer> {
    await this.opened;
    this.throwIfFailed();
    const fd = await open(this.path, 'r');
    try {
      let position = 0;
      for (;;) {
        if (position < this.written) {
          const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, this.written - position));
          const { bytesRead } = await fd.read(buffer, 0, buffer.length, position);
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
          continue;
        }
        this.throwIfFailed();
        if (this.state === 'whole') return;
        await new Promise<void>((resolve) => this.wake.push(resolve));
      }
    } finally {
      await fd.close();
    }
  }

  private throwIfFailed(): void {
    if (typeof this.state === 'object') throw this.state.failed;
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const resolve of waiting) resolve();
  }
}
