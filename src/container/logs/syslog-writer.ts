// Sends a container's messages to its syslog server as dockerd's syslog driver does (srslog's
// Writer): formatted when they go, one connection kept and dialled again after it breaks. Unlike
// dockerd, whose Write blocks the container's output while a TCP server does not read, the
// writer never holds its container for long: messages wait in a bounded buffer, the drain waits for
// a full buffer to empty for a few seconds at most, and what can't be sent or buffered (the server
// is down, stuck, or refuses datagrams) is dropped with one warning a streak, as dockerd logs a
// message it failed to send and goes on.
import os from 'node:os';
import type { Logger } from 'pino';
import { dialSyslog, type SyslogConnection } from './syslog-connection.js';
import type { LogSink } from './log-drain.js';
import { SEVERITY_ERR, SEVERITY_INFO, syslogMessage, type SyslogHeader } from './syslog-format.js';
import type { SyslogConfig } from './syslog-options.js';

/** past this many bytes waiting to be sent, the drain waits for them */
const HIGH_WATER_BYTES = 256 * 1024;
/** past this many, messages are dropped */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** how long the drain waits for a full buffer before the server counts as stuck */
const STALL_MS = 5_000;
/** how long a closing connection may take to send what it has */
const CLOSE_MS = 5_000;

export interface SyslogWriterOptions {
  config: SyslogConfig;
  tag: string;
  log: Logger;
}

interface ConnectionSlot {
  conn?: SyslogConnection;
}

export class SyslogWriter {
  private conn: SyslogConnection | undefined;
  private dialing: Promise<void> | undefined;
  /** messages made while a dial is under way */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failing = false;
  private stalled = false;
  private dropped = 0;
  private closed = false;
  private readonly header: SyslogHeader;

  private constructor(private readonly opts: SyslogWriterOptions) {
    const { config } = opts;
    this.header = {
      format: config.format,
      facility: config.facility,
      // srslog: os.Hostname(), and a tag dockerd never leaves empty (its own name when it would be)
      hostname: os.hostname(),
      tag: opts.tag || 'berthd',
      pid: process.pid,
      octetCounted: config.network === 'tcp+tls' && (config.format === 'rfc5424' || config.format === 'rfc5424micro'),
    };
  }

  /** Dials now, as dockerd's driver does when the container starts: a failure is the start's. */
  static async open(opts: SyslogWriterOptions): Promise<SyslogWriter> {
    const writer = new SyslogWriter(opts);
    const slot: ConnectionSlot = {};
    writer.conn = slot.conn = await dialSyslog(opts.config, writer.events(slot));
    return writer;
  }

  /** Dials with the first message (a run berthd adopts after a restart: its output must not wait). */
  static later(opts: SyslogWriterOptions): SyslogWriter {
    return new SyslogWriter(opts);
  }

  /** Sends a line (without its newline) with this severity. */
  send(severity: number, content: Buffer): void {
    if (this.closed) return;
    const bytes = syslogMessage(this.header, severity, content, nowMicros());
    if (this.conn !== undefined) {
      if (this.conn.bufferedBytes() >= MAX_BUFFERED_BYTES) this.drop(new Error('the syslog server takes no more'));
      else this.conn.send(bytes);
      return;
    }
    if (this.pendingBytes + bytes.length > MAX_BUFFERED_BYTES) {
      this.drop(new Error('the syslog server takes no more'));
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.dial();
  }

  /** Resolves once the buffer is below its mark, or the server has been found stuck (then at once until it moves). */
  async ready(): Promise<void> {
    const conn = this.conn;
    if (conn === undefined || this.stalled || conn.bufferedBytes() < HIGH_WATER_BYTES) return;
    let timer: NodeJS.Timeout | undefined;
    const stuck = await Promise.race([conn.drained().then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STALL_MS)))]);
    clearTimeout(timer);
    if (!stuck) return;
    this.stalled = true;
    this.warn(new Error(`the syslog server has taken nothing for ${STALL_MS / 1000}s`));
    void conn.drained().then(() => (this.stalled = false));
  }

  /** Sends what is buffered, then closes: a few seconds at most, a dial under way included (a run's end waits for this). */
  async close(): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_MS)));
    // a dial that ends later finds the writer closed and lets its connection go
    await Promise.race([this.dialing, deadline]);
    const conn = this.conn;
    this.conn = undefined;
    if (conn !== undefined) {
      await Promise.race([conn.end(), deadline]);
      conn.destroy();
    }
    clearTimeout(timer);
    if (this.dropped > 0) this.opts.log.warn({ address: this.target(), dropped: this.dropped }, 'container log messages were dropped: the syslog server did not take them');
  }

  /** What the connection in `slot` tells; a broken one is let go of, if it is still the current one. */
  private events(slot: ConnectionSlot) {
    return {
      sent: () => {
        if (!this.failing) return;
        this.failing = false;
        this.opts.log.info({ address: this.target(), dropped: this.dropped }, 'sending container log messages to syslog works again');
      },
      failed: (err: Error, broken: boolean) => {
        this.drop(err);
        if (broken && this.conn === slot.conn) this.conn = undefined;
      },
    };
  }

  private dial(): void {
    if (this.dialing !== undefined) return;
    const slot: ConnectionSlot = {};
    this.dialing = dialSyslog(this.opts.config, this.events(slot))
      .then(
        (conn) => {
          if (this.closed) {
            conn.destroy();
            return;
          }
          this.conn = slot.conn = conn;
          for (const bytes of this.pending) conn.send(bytes);
        },
        (err: Error) => {
          for (let i = 0; i < this.pending.length; i++) this.drop(err);
        },
      )
      .finally(() => {
        this.pending = [];
        this.pendingBytes = 0;
        this.dialing = undefined;
      });
  }

  private drop(err: Error): void {
    this.dropped++;
    this.warn(err);
  }

  /** Said once a streak of failures. */
  private warn(err: Error): void {
    if (this.failing) return;
    this.failing = true;
    this.opts.log.warn({ err, address: this.target() }, 'sending container log messages to syslog failed: they are dropped until it works again');
  }

  private target(): string {
    return `${this.opts.config.network}://${this.opts.config.address}`;
  }
}

/** Microseconds since the epoch, finer than Date.now() (rfc5424micro prints six digits). */
function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

/** The drain's sink for syslog: stderr's lines as err, stdout's as info; empty lines skipped, as dockerd's Log skips them. */
export function syslogSink(writer: SyslogWriter): LogSink {
  return {
    put: (msg) => {
      if (msg.line.length > 0) writer.send(msg.stream === 'stderr' ? SEVERITY_ERR : SEVERITY_INFO, msg.line);
    },
    flush: () => writer.ready(),
    close: () => writer.close(),
  };
}
