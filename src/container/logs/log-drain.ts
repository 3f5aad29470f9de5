// Reads a run's output from its log pipe (log-pipe.ts), makes dockerd's messages of it
// (message-assembler.ts) and hands each to the driver's sinks: the log file in the driver's format
// (file-log-sink.ts) and, for syslog, the server (syslog-writer.ts) beside its local cache. The
// pipe is not read while the sinks flush what a read brought, so the container can't outrun the
// disk. It ends when the pipe does: the run has ended and every byte of it is written.
import type { Logger } from 'pino';
import type net from 'node:net';
import type { LogMessage } from './log-codecs.js';
import { MessageAssembler } from './message-assembler.js';
import { releaseLogPipe } from '../../runtime/log-pipe.js';

/** how long the end of the output may take once the run has ended (conmon exits right after) */
const END_WAIT_MS = 10_000;

/** Where a drain's messages go. A sink deals with its own failures: the drain goes on regardless. */
export interface LogSink {
  /** Takes one message; its line is valid only during the call. */
  put(msg: LogMessage): void;
  /** After each read of the pipe: what was put goes out (the pipe waits for it). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface LogDrainOptions {
  pipe: net.Socket;
  bundleDir: string;
  sinks: readonly LogSink[];
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

  /** berthd stops; the run goes on and the pipe keeps its output for the next berthd. Resolves once what was read is written. */
  stop(): Promise<void> {
    this.stopped = true;
    this.pipe.destroy();
    return this.done;
  }

  private async drain(): Promise<void> {
    const { pipe, sinks, log } = this.opts;
    const assembler = new MessageAssembler((msg: LogMessage) => {
      for (const sink of sinks) sink.put(msg);
    });
    const flush = () => Promise.all(sinks.map((sink) => sink.flush()));
    try {
      // paused between reads: conmon blocks on the full pipe while the sinks flush
      for await (const chunk of pipe) {
        assembler.push(chunk as Buffer);
        await flush();
      }
    } catch (err) {
      if (!this.stopped) log.warn({ err, bundleDir: this.opts.bundleDir }, 'reading a container log pipe failed');
    } finally {
      // a line cut by berthd's stop goes out as a partial message: its bytes are kept
      assembler.end();
      await flush();
      await Promise.all(sinks.map((sink) => sink.close()));
    }
  }
}
