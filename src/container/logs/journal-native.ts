// The journald driver's entries as dockerd 20.10's driver (daemon/logger/journald/journald.go)
// hands them to go-systemd's journal.Send, which writes them to /run/systemd/journal/socket in
// journald's native protocol, one datagram an entry (berth's writer may put several in one, each
// ended by an empty line, which journald takes as well: journald-writer.ts):
//
//   PRIORITY=<6 for stdout, 3 for stderr>\n MESSAGE=<line>\n, then the container's fields:
//   CONTAINER_ID (12 characters), CONTAINER_ID_FULL, CONTAINER_NAME, CONTAINER_TAG, IMAGE_NAME,
//   SYSLOG_IDENTIFIER (the tag), the labels and env options' attributes (their keys sanitised as
//   dockerd's sanitizeKeyMod does), and for a partial message CONTAINER_PARTIAL_ID,
//   CONTAINER_PARTIAL_ORDINAL, CONTAINER_PARTIAL_LAST, with CONTAINER_PARTIAL_MESSAGE=true on all
//   but the last piece (what `docker logs` reads to leave the newline off).
//
// A field is `NAME=value\n`, or, when the value holds a newline, `NAME\n`, its length as a 64-bit
// little-endian integer, the value and `\n`. journald drops a field whose name it refuses (empty,
// over 64 characters, starting with a digit or `_`, anything but A-Z, 0-9 and `_`), and an empty
// name would even end the entry early: berth leaves such fields out, so the journal holds what it
// holds under dockerd. Unlike dockerd, which sends a datagram too large for the socket through a
// file descriptor (go-systemd's fallback), berth's entries go through a relay that carries up to
// 64 KiB a datagram (runtime/datagram-relay.ts): a message is at most 16 KiB (longer lines are
// partial messages), so only fields of the container's own that are very large (a label's or an
// environment variable's value the labels or env options name, a long tag) could go over, and
// such a container's start is refused (log-drivers.ts) rather than its messages dropped.
import { logTime, type LogMessage } from './log-codecs.js';
import { MAX_MESSAGE_BYTES } from './message-assembler.js';

/** go-systemd's journal.PriInfo and journal.PriErr */
export const JOURNAL_PRIORITY_INFO = 6;
export const JOURNAL_PRIORITY_ERR = 3;

const NEWLINE = 0x0a;

/** dockerd's sanitizeKeyMod: a-z upper-cased, anything but A-Z and 0-9 an underscore, leading underscores dropped. */
export function sanitizeJournalKey(key: string): string {
  let out = '';
  for (const c of key) {
    let v = c;
    if (c >= 'a' && c <= 'z') v = c.toUpperCase();
    else if ((c > 'Z' || c < 'A') && (c > '9' || c < '0')) v = '_';
    if (out === '' && v === '_') continue;
    out += v;
  }
  return out;
}

/** journald's journal_field_valid for a field a client sends. */
export function journalFieldNameValid(name: string): boolean {
  return /^[A-Z][A-Z0-9_]{0,63}$/.test(name);
}

/** One field in the native protocol (go-systemd's appendVariable). */
export function encodeJournalField(name: string, value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  if (!bytes.includes(NEWLINE)) return Buffer.concat([Buffer.from(`${name}=`, 'latin1'), bytes, Buffer.from('\n')]);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(bytes.length));
  return Buffer.concat([Buffer.from(`${name}\n`, 'latin1'), length, bytes, Buffer.from('\n')]);
}

/** Makes the entries of one container's messages; its own fields are encoded once. */
export class JournalEntryEncoder {
  private readonly fixed: Buffer;
  private readonly priority = {
    stdout: encodeJournalField('PRIORITY', String(JOURNAL_PRIORITY_INFO)),
    stderr: encodeJournalField('PRIORITY', String(JOURNAL_PRIORITY_ERR)),
  };

  /** `fields`: the container's own (journald-driver's vars), sent with every message. */
  constructor(fields: Readonly<Record<string, string>>) {
    this.fixed = Buffer.concat(
      Object.entries(fields)
        .filter(([name]) => journalFieldNameValid(name))
        .map(([name, value]) => encodeJournalField(name, value)),
    );
  }

  /** The datagram of one message. */
  encode(msg: LogMessage): Buffer {
    const parts = [this.priority[msg.stream], encodeJournalField('MESSAGE', msg.line), this.fixed];
    const partial = msg.partial;
    if (partial !== undefined) {
      parts.push(
        encodeJournalField('CONTAINER_PARTIAL_ID', partial.id),
        encodeJournalField('CONTAINER_PARTIAL_ORDINAL', String(partial.ordinal)),
        encodeJournalField('CONTAINER_PARTIAL_LAST', String(partial.last)),
      );
      if (!partial.last) parts.push(encodeJournalField('CONTAINER_PARTIAL_MESSAGE', 'true'));
    }
    return Buffer.concat(parts);
  }

  /** The size of the largest entry this container can send: a 16 KiB piece of a line, in the binary form, with the partial fields. */
  maxEntryBytes(): number {
    const line = Buffer.alloc(MAX_MESSAGE_BYTES, 0x61);
    line[0] = NEWLINE;
    const partial = { id: 'f'.repeat(64), ordinal: Number.MAX_SAFE_INTEGER, last: false };
    return this.encode({ stream: 'stdout', time: logTime(0n), line, partial }).length;
  }
}
