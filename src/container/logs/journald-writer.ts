// Sends a container's messages to the journal as dockerd's journald driver does (go-systemd's
// journal.Send): one datagram an entry to /run/systemd/journal/socket (journal-native.ts makes
// them), through a relay connected when the run starts; no journal to connect to fails the start
// with dockerd's "journald is not enabled on this host". A relay that breaks (journald restarted)
// is connected again with the next message.
//
// Where dockerd's Send blocks the container while journald does not read, the writer holds its
// container for a few seconds at most, as the syslog writer does: entries wait in a bounded
// buffer, the drain waits for a full one to empty for a while, and what can't be sent or buffered
// is dropped with one warning a streak. When the run ends, the writer waits until journald has
// written what it was sent (journalctl --sync), so that the end of the run is told once
// `docker logs` can read all of its output.
import type { Logger } from 'pino';
import type { DatagramRelay } from '../../runtime/datagram-relay.js';
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

/** dockerd's journal.Enabled() said no: nothing takes datagrams at the journal's socket. */
export class JournalNotEnabledError extends Error {
  constructor() {
    super('journald is not enabled on this host');
  }
}

export class JournaldWriter {
  private relay: DatagramRelay | undefined;
  private dialing: Promise<void> | undefined;
  /** entries made while a dial is under way */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** settles once the last entry handed to the relay is sent, or dropped */
  private lastSent: Promise<void> = Promise.resolve();
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
    if (this.relay !== undefined) {
      if (this.relay.queuedBytes() >= MAX_BUFFERED_BYTES) this.drop(new Error('journald takes no more'));
      else this.hand(this.relay, entry);
      return;
    }
    if (this.pendingBytes + entry.length > MAX_BUFFERED_BYTES) {
      this.drop(new Error('journald takes no more'));
      return;
    }
    this.pending.push(entry);
    this.pendingBytes += entry.length;
    this.dial();
  }

  /** Resolves once the buffer is below its mark, or journald has been found stuck (then at once until it moves). */
  async ready(): Promise<void> {
    const relay = this.relay;
    if (relay === undefined || this.stalled || relay.queuedBytes() < HIGH_WATER_BYTES) return;
    const sent = this.lastSent;
    let timer: NodeJS.Timeout | undefined;
    const stuck = await Promise.race([sent.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STALL_MS)))]);
    clearTimeout(timer);
    if (!stuck) return;
    this.stalled = true;
    this.warn(new Error(`journald has taken nothing for ${STALL_MS / 1000}s`));
    void sent.then(() => (this.stalled = false));
  }

  /** Sends what is buffered and waits for journald to have written it: a few seconds at most (a run's end waits for this). */
  async close(): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_MS)));
    // a dial that ends later finds the writer closed and lets its relay go
    await Promise.race([this.dialing, deadline]);
    const relay = this.relay;
    this.relay = undefined;
    if (relay !== undefined) {
      relay.end();
      await Promise.race([relay.closed, deadline]);
      relay.kill();
    }
    if (this.sentAny) {
      const synced = syncJournal(CLOSE_MS).catch((err: unknown) => this.log.debug({ err }, 'journalctl --sync failed: a reader may miss the last entries for a moment'));
      await Promise.race([synced, deadline]);
    }
    clearTimeout(timer);
    if (this.dropped > 0) this.log.warn({ socket: JOURNAL_SOCKET, dropped: this.dropped }, 'container log messages were dropped: journald did not take them');
  }

  private use(relay: DatagramRelay): void {
    this.relay = relay;
    // journald went away (or restarted): what was queued is dropped, and the next message connects again
    void relay.closed.then(() => {
      if (this.relay === relay) this.relay = undefined;
    });
  }

  private hand(relay: DatagramRelay, entry: Buffer): void {
    this.lastSent = relay.send(entry).then(
      () => {
        this.sentAny = true;
        if (!this.failing) return;
        this.failing = false;
        this.log.info({ socket: JOURNAL_SOCKET, dropped: this.dropped }, 'sending container log messages to journald works again');
      },
      (err: Error) => this.drop(err),
    );
  }

  private dial(): void {
    if (this.dialing !== undefined) return;
    this.dialing = openJournalSocket()
      .then(
        (relay) => {
          if (this.closed) {
            relay.kill();
            return;
          }
          this.use(relay);
          for (const entry of this.pending) this.hand(relay, entry);
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
