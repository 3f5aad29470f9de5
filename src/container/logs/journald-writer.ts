// Sends a container's messages to the journal as dockerd's journald driver does (go-systemd's
// journal.Send): entries in journald's native protocol (journal-native.ts) to
// /run/systemd/journal/socket, through a relay connected when the run starts; no journal to
// connect to fails the start with dockerd's "journald is not enabled on this host". A relay that
// breaks (journald restarted) is connected again with the next message.
//
// The relay sends one datagram at a time and waits for socat to report it sent (datagram-relay.ts),
// about a millisecond each: one entry a datagram, as dockerd sends them, would hold a chatty
// container to a thousand lines a second. journald takes several entries in one datagram, each
// ended by an empty line, so the entries that came while a datagram was on its way go together in
// the next, up to the relay's 64 KiB: a burst of output is written at the pace of dockerd's, and
// a line written alone still goes at once. Entries sent together share journald's receive time.
//
// Where dockerd's Send blocks the container while journald does not read, the writer holds its
// container for a few seconds at most, as the syslog writer does: entries wait in a bounded
// buffer, the drain waits for a full one to empty for a while, and what can't be sent or buffered
// is dropped with one warning a streak. When the run ends, the writer waits until journald has
// written what it was sent (journalctl --sync), so that the end of the run is told once
// `docker logs` can read all of its output.
import type { Logger } from 'pino';
import { MAX_DATAGRAM_BYTES, type DatagramRelay } from '../../runtime/datagram-relay.js';
import { JOURNAL_SOCKET, openJournalSocket, syncJournal } from '../../runtime/journal.js';
import type { JournalEntryEncoder } from './journal-native.js';
import type { LogMessage } from './log-codecs.js';
import type { LogSink } from './log-drain.js';

/** past this many bytes waiting to be sent, the drain waits for them */
const HIGH_WATER_BYTES = 256 * 1024;
/** past this many, messages are dropped */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** how long the drain waits for a full buffer before journald counts as stuck */
const STALL_MS = 5_000;
/** how long closing may take: sending what is buffered, then journald's sync */
const CLOSE_MS = 5_000;

/** between two entries of one datagram */
const ENTRY_SEPARATOR = Buffer.from('\n');

/** dockerd's journal.Enabled() said no: nothing takes datagrams at the journal's socket. */
export class JournalNotEnabledError extends Error {
  constructor() {
    super('journald is not enabled on this host');
  }
}

export class JournaldWriter {
  private relay: DatagramRelay | undefined;
  private dialing: Promise<void> | undefined;
  /** entries not yet handed to the relay, oldest first */
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  /** the datagram on its way */
  private sending = false;
  /** told when the queue is empty and nothing is on its way (or what was is dropped) */
  private idleWaiters: Array<() => void> = [];
  private sentAny = false;
  private failing = false;
  private stalled = false;
  private dropped = 0;
  private closed = false;

  private constructor(
    private readonly encoder: JournalEntryEncoder,
    private readonly log: Logger,
  ) {}

  /**
   * Connects now, as dockerd's driver checks the journal when the container starts: a failure is
   * the start's. `encoder` is made once the journal is found (dockerd checks it first, then the tag).
   */
  static async open(encoder: () => JournalEntryEncoder, log: Logger): Promise<JournaldWriter> {
    let relay: DatagramRelay;
    try {
      relay = await openJournalSocket();
    } catch {
      throw new JournalNotEnabledError();
    }
    let writer: JournaldWriter;
    try {
      writer = new JournaldWriter(encoder(), log);
    } catch (err) {
      relay.kill();
      throw err;
    }
    writer.use(relay);
    return writer;
  }

  /** Connects with the first message (a run berthd adopts after a restart: its output must not wait). */
  static later(encoder: JournalEntryEncoder, log: Logger): JournaldWriter {
    return new JournaldWriter(encoder, log);
  }

  send(msg: LogMessage): void {
    if (this.closed) return;
    const entry = this.encoder.encode(msg);
    if (this.queuedBytes + entry.length > MAX_BUFFERED_BYTES) {
      this.drop(1, new Error('journald takes no more'));
      return;
    }
    this.queue.push(entry);
    this.queuedBytes += entry.length;
    this.pump();
  }

  /** Resolves once the buffer is below its mark, or journald has been found stuck (then at once until it moves). */
  async ready(): Promise<void> {
    if (this.stalled || this.queuedBytes < HIGH_WATER_BYTES) return;
    let timer: NodeJS.Timeout | undefined;
    const idle = this.idle();
    const stuck = await Promise.race([idle.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STALL_MS)))]);
    clearTimeout(timer);
    if (!stuck) return;
    this.stalled = true;
    this.warn(new Error(`journald has taken nothing for ${STALL_MS / 1000}s`));
    void idle.then(() => (this.stalled = false));
  }

  /** Sends what is buffered and waits for journald to have written it: a few seconds at most (a run's end waits for this). */
  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_MS)));
    await Promise.race([this.idle(), deadline]);
    // a dial that ends later finds the writer closed and lets its relay go
    this.closed = true;
    const relay = this.relay;
    this.relay = undefined;
    if (relay !== undefined) {
      relay.end();
      await Promise.race([relay.closed, deadline]);
      relay.kill();
    }
    if (this.queue.length > 0) this.drop(this.queue.length, new Error('journald did not take the last messages in time'));
    this.queue = [];
    this.queuedBytes = 0;
    if (this.sentAny) {
      const synced = syncJournal(CLOSE_MS).catch((err: unknown) => this.log.debug({ err }, 'journalctl --sync failed: a reader may miss the last entries for a moment'));
      await Promise.race([synced, deadline]);
    }
    clearTimeout(timer);
    if (this.dropped > 0) this.log.warn({ socket: JOURNAL_SOCKET, dropped: this.dropped }, 'container log messages were dropped: journald did not take them');
  }

  private use(relay: DatagramRelay): void {
    this.relay = relay;
    // journald went away (or restarted): the next message connects again
    void relay.closed.then(() => {
      if (this.relay === relay) this.relay = undefined;
    });
  }

  /** Hands the relay a datagram of the oldest entries, unless one is on its way; connects first when needed. */
  private pump(): void {
    if (this.sending || this.closed) return;
    if (this.queue.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    const relay = this.relay;
    if (relay === undefined) {
      this.dial();
      return;
    }
    let count = 1;
    let sizeBytes = this.queue[0].length;
    while (count < this.queue.length && sizeBytes + ENTRY_SEPARATOR.length + this.queue[count].length <= MAX_DATAGRAM_BYTES) {
      sizeBytes += ENTRY_SEPARATOR.length + this.queue[count].length;
      count++;
    }
    const entries = this.queue.splice(0, count);
    this.queuedBytes -= entries.reduce((n, e) => n + e.length, 0);
    const datagram = Buffer.concat(entries.flatMap((e, i) => (i === 0 ? [e] : [ENTRY_SEPARATOR, e])));
    this.sending = true;
    relay.send(datagram).then(
      () => {
        this.sentAny = true;
        if (this.failing) {
          this.failing = false;
          this.log.info({ socket: JOURNAL_SOCKET, dropped: this.dropped }, 'sending container log messages to journald works again');
        }
      },
      (err: Error) => this.drop(count, err),
    ).finally(() => {
      this.sending = false;
      this.pump();
    });
  }

  private dial(): void {
    if (this.dialing !== undefined) return;
    this.dialing = openJournalSocket()
      .then(
        (relay) => {
          if (this.closed) relay.kill();
          else this.use(relay);
        },
        (err: Error) => {
          // what waited for the dial is lost; what comes next tries again
          if (this.queue.length > 0) this.drop(this.queue.length, err);
          this.queue = [];
          this.queuedBytes = 0;
        },
      )
      .finally(() => {
        this.dialing = undefined;
        this.pump();
      });
  }

  /** Resolves once everything handed over is sent or dropped. */
  private idle(): Promise<void> {
    if (!this.sending && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private drop(count: number, err: Error): void {
    this.dropped += count;
    this.warn(err);
  }

  /** Said once a streak of failures. */
  private warn(err: Error): void {
    if (this.failing) return;
    this.failing = true;
    this.log.warn({ err, socket: JOURNAL_SOCKET }, 'sending container log messages to journald failed: they are dropped until it works again');
  }
}

/** The drain's sink for journald: every message, empty lines too (dockerd sends them; its reader skips them). */
export function journaldSink(writer: JournaldWriter): LogSink {
  return {
    put: (msg) => writer.send(msg),
    flush: () => writer.ready(),
    close: () => writer.close(),
  };
}
