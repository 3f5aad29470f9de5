// Reads a run's output from its log pipe (log-pipe.ts), makes dockerd's messages of it
// (message-assembler.ts) and writes them to the log file in the driver's format, rotating it
// (rotating-log-file.ts). The pipe is not read while a write is under way, so the container can't
// outrun the disk. It ends when the pipe does: the run has ended and every byte of it is written.
import type { Logger } from 'pino';
import type net from 'node:net';
import { EntryBatch } from './entry-batch.js';
import type { LogEncoder, LogMessage } from './log-codecs.js';
import { MessageAssembler } from './message-assembler.js';
import { releaseLogPipe } from '../../runtime/log-pipe.js';
import { RotatingLogFile } from './rotating-log-file.js';
import type { LogRotation } from './log-options.js';

/** how long the end of the output may take once the run has ended (conmon exits right after) */
const END_WAIT_MS = 10_000;

export interface LogDrainOptions {
  pipe: net.Socket;
  bundleDir: string;
  file: string;
  encoder: LogEncoder;
  rotation: LogRotation | undefined;
  log: Logger;
}

export class LogDrain {
  /** resolves once the pipe has ended and all of it is in the file */
  readonly done: Promise<void>;
  private readonly pipe: net.Socket;
  private stopped = false;

  constructor(private readonly opts: LogDrainOptions) {
    this.pipe = opts.pipe;
    this.done = this.drain();
  }

  /** The run has ended: what is left in the pipe is written, then the drain ends. */
  async finish(): Promise<void> {
    await releaseLogPipe(this.opts.bundleDir);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_WAIT_MS)));
    await Promise.race([this.done, late]);
    clearTimeout(timer);
    // something else still holds the pipe open: what came is written, the rest is not waited for
    this.pipe.destroy();
    await this.done;
  }

  /** berthd stops; the run goes on and the pipe keeps its output for the next berthd. */
  stop(): void {
    this.stopped = true;
    this.pipe.destroy();
  }

  private async drain(): Promise<void> {
    const { encoder, pipe, log } = this.opts;
    // a log that can't be written never holds the container up: its output is read and dropped
    const file = await RotatingLogFile.open(this.opts.file, this.opts.rotation).catch((err: unknown) => {
      log.warn({ err, file: this.opts.file }, "opening a container log failed: the run's output is dropped");
      return undefined;
    });
    const batch = new EntryBatch();
    const assembler = new MessageAssembler((msg: LogMessage) => encoder.encode(msg, batch));
    let failing = false;
    const writeBatch = async () => {
      try {
        await file?.write(batch.bytes(), batch.ends);
        failing = false;
      } catch (err) {
        // a full disk: dropped, as dockerd's logger drops what it can't write, and said once a streak
        if (!failing) log.warn({ err, file: this.opts.file }, 'writing a container log failed: output is dropped until it works again');
        failing = true;
      } finally {
        batch.reset();
      }
    };
    try {
      // paused between reads: conmon blocks on the full pipe while the file is written and rotated
      for await (const chunk of pipe) {
        assembler.push(chunk as Buffer);
        await writeBatch();
      }
    } catch (err) {
      if (!this.stopped) log.warn({ err, file: this.opts.file }, 'reading a container log pipe failed');
    } finally {
      // a line cut by berthd's stop goes out as a partial message: its bytes are kept
      assembler.end();
      await writeBatch();
      await file?.close().catch((err: unknown) => log.warn({ err, file: this.opts.file }, 'closing a container log failed'));
    }
  }
}
