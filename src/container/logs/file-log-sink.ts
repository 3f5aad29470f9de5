// A drain's sink that writes each message to a rotating file in the driver's format: the json-file
// and local drivers' logs, syslog's local cache, the file attach follows under `none`. A file that
// can't be opened or written (a full disk) never holds the container up: its messages are dropped,
// said once a streak, as dockerd's logger drops what it can't write.
import type { Logger } from 'pino';
import { EntryBatch } from './entry-batch.js';
import type { LogEncoder, LogMessage } from './log-codecs.js';
import type { LogSink } from './log-drain.js';
import type { LogRotation } from './log-options.js';
import { RotatingLogFile } from './rotating-log-file.js';

export class FileLogSink implements LogSink {
  private readonly batch = new EntryBatch();
  private opened: Promise<RotatingLogFile | undefined> | undefined;
  private failing = false;

  constructor(
    private readonly file: string,
    private readonly encoder: LogEncoder,
    private readonly rotation: LogRotation | undefined,
    private readonly log: Logger,
  ) {}

  put(msg: LogMessage): void {
    this.encoder.encode(msg, this.batch);
  }

  async flush(): Promise<void> {
    const file = await this.open();
    try {
      await file?.write(this.batch.bytes(), this.batch.ends);
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.log.warn({ err, file: this.file }, 'writing a container log failed: output is dropped until it works again');
      this.failing = true;
    } finally {
      this.batch.reset();
    }
  }

  async close(): Promise<void> {
    const file = await this.opened;
    await file?.close().catch((err: unknown) => this.log.warn({ err, file: this.file }, 'closing a container log failed'));
  }

  private open(): Promise<RotatingLogFile | undefined> {
    this.opened ??= RotatingLogFile.open(this.file, this.rotation).catch((err: unknown) => {
      this.log.warn({ err, file: this.file }, "opening a container log failed: the run's output is dropped");
      return undefined;
    });
    return this.opened;
  }
}
