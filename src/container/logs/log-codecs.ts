// The on-disk formats of a container's log, as the tools that read Docker's logs expect them:
//
//   json-file   <id>-json.log: one JSON object per line, written as dockerd's jsonlog does it
//               (daemon/logger/jsonfilelog/jsonlog/jsonlogbytes.go): {"log":"<text>","stream":
//               "stdout","attrs":{...},"time":"<RFC3339Nano>"}. A whole line's text ends with its
//               newline; a partial message's (a line longer than 16 KiB, cut; output that ended
//               without one) does not. `<`, `>`, `&` and control characters are \u-escaped and
//               invalid UTF-8 becomes U+FFFD, as Go's encoder does.
//   local       local-logs/container.log: each entry a big-endian uint32 size, a protobuf LogEntry
//               (daemon/logger/internal/logdriver/entry.proto: source 1, time_nano 2, line 3,
//               partial 4, partial_log_metadata 5 {last 1, id 2, ordinal 3}) and the size again,
//               so the file reads backwards too. The line has no newline; whole lines get it back.
//   k8s-file    what conmon writes (a terminal exec's transcript here): `<RFC3339Nano> <stream>
//               <F|P> <text>` lines; F is a whole line without its newline, P a piece of one.
//
// Each codec decodes whole entries from a buffer and finds where the last N entries begin.
import type { FileHandle } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { formatRfc3339NanoFixed } from '../../lib/timestamp.js';
import type { EntryBatch } from './entry-batch.js';

export type LogStream = 'stdout' | 'stderr';

/** One entry as readers get it. */
export interface LogEntry {
  stream: LogStream;
  timeNs: bigint;
  /** The time as dockerd prints it under timestamps=1: UTC, nine fraction digits. */
  time: string;
  /** The bytes, with the newline for a whole line. */
  data: Buffer;
}

/** A time as the writer has it: one per distinct time, since a conmon read's records share theirs. */
export interface LogTime {
  ns: bigint;
  /** Go's time.RFC3339Nano in UTC, as json-file writes it */
  rfc3339Nano: Buffer;
  /** the nanoseconds as a protobuf varint, as local writes them */
  varint: Buffer;
}

export function logTime(ns: bigint): LogTime {
  return { ns, rfc3339Nano: Buffer.from(formatRfc3339NanoFixed(ns).replace(/\.?0+Z$/, 'Z'), 'latin1'), varint: varint(ns) };
}

/** One message as the writer has it (dockerd's logger.Message). */
export interface LogMessage {
  stream: LogStream;
  time: LogTime;
  /** the text without a newline */
  line: Buffer;
  /** set on a piece of a longer message: its id and ordinal (1 first), and whether it is the last */
  partial?: { id: string; ordinal: number; last: boolean };
}

export interface LogCodec {
  /** Decodes the whole entries at the start of `buf`, passing each to `emit`; returns the bytes they took. */
  decode(buf: Buffer, emit: (entry: LogEntry) => void): number;
  /** Where the last `entries` whole entries of the file begin, or its start and how many it has when fewer. */
  tailOffset(fh: FileHandle, size: number, entries: number): Promise<{ offset: number; entries: number }>;
}

export interface LogEncoder extends LogCodec {
  /** Appends the message's entry to the batch. */
  encode(msg: LogMessage, out: EntryBatch): void;
}

const NEWLINE = 0x0a;
const NANOS_PER_SECOND = 1_000_000_000n;
const BLOCK_BYTES = 64 * 1024;
const TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

// ---- json-file ----

export const jsonFileCodec = (attrs: Readonly<Record<string, string>> = {}): LogEncoder => {
  const rawAttrs = Object.keys(attrs).length === 0 ? '' : `,"attrs":${goJsonObject(attrs)}`;
  // the bytes around the text and the time, made once
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  const afterLog = { stdout: bytes(`","stream":"stdout"${rawAttrs},"time":"`), stderr: bytes(`","stream":"stderr"${rawAttrs},"time":"`) };
  const withoutLog = { stdout: bytes(`{"stream":"stdout"${rawAttrs},"time":"`), stderr: bytes(`{"stream":"stderr"${rawAttrs},"time":"`) };
  return {
    encode(msg, out) {
      // dockerd's marshalMessage: the newline goes back on a whole message and on a partial one's last piece
      const newline = msg.partial === undefined || msg.partial.last;
      if (msg.line.length === 0 && !newline) {
        out.put(withoutLog[msg.stream]);
      } else {
        out.put(LOG_FIELD);
        putJsonText(out, msg.line);
        if (newline) out.put(ESCAPED_NEWLINE);
        out.put(afterLog[msg.stream]);
      }
      out.put(msg.time.rfc3339Nano);
      out.put(ENTRY_END);
      out.endEntry();
    },
    decode: (buf, emit) =>
      decodeLines(buf, (line) => {
        const entry = parseJsonLine(line);
        if (entry !== undefined) emit(entry);
      }),
    tailOffset: newlineTailOffset,
  };
};

const NEWLINE_BYTES = Buffer.from('\n');
const ESCAPED_NEWLINE = Buffer.from('\\n');
const ENTRY_END = Buffer.from('"}\n');
const LOG_FIELD = Buffer.from('{"log":"');
const STREAM_FIELD = Buffer.from('","stream":"');
const TIME_FIELD = Buffer.from('"time":"');

/** The bytes a text is looked at closer for: those Go escapes, and any of a multi-byte sequence (invalid ones and U+2028/9 change) */
const NEEDS_A_LOOK = (() => {
  const table = new Uint8Array(256);
  for (let b = 0; b < 0x20; b++) table[b] = 1;
  for (const c of '"\\<>&') table[c.charCodeAt(0)] = 1;
  for (let b = 0x80; b < 0x100; b++) table[b] = 1;
  return table;
})();

/** The text as the inside of a Go JSON string: as it is when nothing in it needs escaping. */
function putJsonText(out: EntryBatch, text: Buffer): void {
  for (let i = 0; i < text.length; i++) {
    if (NEEDS_A_LOOK[text[i]] === 1) {
      out.put(Buffer.from(goJsonString(text).slice(1, -1), 'utf8'));
      return;
    }
  }
  out.put(text);
}

/** A line of json-file: the usual shape read without JSON.parse, anything else through it. */
function parseJsonLine(line: Buffer): LogEntry | undefined {
  return parsePlainJsonLine(line) ?? parseAnyJsonLine(line);
}

/** `{"log":"<text without escapes>\n","stream":"<s>",...,"time":"<t>"}`, as most lines are. */
function parsePlainJsonLine(line: Buffer): LogEntry | undefined {
  if (line.compare(LOG_FIELD, 0, LOG_FIELD.length, 0, LOG_FIELD.length) !== 0) return undefined;
  const textEnd = line.indexOf(STREAM_FIELD, LOG_FIELD.length);
  if (textEnd < 0) return undefined;
  // the only backslash is the escaped newline at the end
  const slash = line.indexOf(0x5c, LOG_FIELD.length);
  const whole = slash === textEnd - 2 && line[textEnd - 1] === 0x6e;
  if (slash >= 0 && !whole) return undefined;
  const streamAt = textEnd + STREAM_FIELD.length;
  const stream = line[streamAt + 3] === 0x6f ? 'stdout' : line[streamAt + 3] === 0x65 ? 'stderr' : undefined;
  if (stream === undefined || line[streamAt + 6] !== 0x22) return undefined;
  const timeAt = line.lastIndexOf(TIME_FIELD);
  if (timeAt < streamAt || line[line.length - 2] !== 0x22 || line[line.length - 1] !== 0x7d) return undefined;
  const time = cachedTime(line.toString('latin1', timeAt + TIME_FIELD.length, line.length - 2));
  if (time === undefined) return undefined;
  const data = Buffer.allocUnsafe(whole ? textEnd - 1 - LOG_FIELD.length : textEnd - LOG_FIELD.length);
  line.copy(data, 0, LOG_FIELD.length, whole ? textEnd - 2 : textEnd);
  if (whole) data[data.length - 1] = NEWLINE;
  return { stream, timeNs: time.ns, time: time.text, data };
}

function parseAnyJsonLine(line: Buffer): LogEntry | undefined {
  let parsed: { log?: unknown; stream?: unknown; time?: unknown };
  try {
    parsed = JSON.parse(line.toString('utf8')) as typeof parsed;
  } catch {
    return undefined;
  }
  const { stream } = parsed;
  if ((stream !== 'stdout' && stream !== 'stderr') || typeof parsed.time !== 'string') return undefined;
  const time = cachedTime(parsed.time);
  if (time === undefined) return undefined;
  return { stream, timeNs: time.ns, time: time.text, data: Buffer.from(typeof parsed.log === 'string' ? parsed.log : '', 'utf8') };
}

/** The last time read, parsed and formatted once: the entries of one read of the writer share it. */
let lastTime: { raw: string; ns: bigint; text: string } | undefined;
function cachedTime(raw: string): { ns: bigint; text: string } | undefined {
  if (lastTime?.raw === raw) return lastTime;
  const ns = parseLogTime(raw);
  if (ns === undefined) return undefined;
  lastTime = { raw, ns, text: formatRfc3339NanoFixed(ns) };
  return lastTime;
}

/** A JSON string as Go's encoder (and jsonlog's) writes it: HTML characters escaped, invalid UTF-8 as \ufffd. */
export function goJsonString(bytes: Buffer): string {
  const escape = (text: string) => text.replace(GO_JSON_ESCAPES, escapeChar);
  return `"${isUtf8(bytes) ? escape(bytes.toString('utf8')) : validPieces(bytes).map(escape).join('\\ufffd')}"`;
}

const GO_JSON_ESCAPES = /[\u0000-\u001f"\\<>&\u2028\u2029]/g;

function escapeChar(c: string): string {
  switch (c) {
    case '"':
      return '\\"';
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    default:
      return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  }
}

/** The text between the bytes that start no valid sequence (Go's utf8.DecodeRune gives each one U+FFFD). */
function validPieces(bytes: Buffer): string[] {
  const pieces: string[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const size = validSequenceLength(bytes, i);
    if (size > 0) {
      i += size;
      continue;
    }
    pieces.push(bytes.toString('utf8', start, i));
    i += 1;
    start = i;
  }
  pieces.push(bytes.toString('utf8', start));
  return pieces;
}

/** The length of the valid UTF-8 sequence at i, or 0 when there is none (overlong, surrogate, cut). */
function validSequenceLength(b: Buffer, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** A map of strings as Go's json.Marshal writes it: keys sorted. */
function goJsonObject(map: Readonly<Record<string, string>>): string {
  const keys = Object.keys(map).sort();
  return `{${keys.map((k) => `${goJsonString(Buffer.from(k))}:${goJsonString(Buffer.from(map[k]))}`).join(',')}}`;
}

// ---- local ----

const LOCAL_STDOUT = field(1, 2, Buffer.from('stdout'));
const LOCAL_STDERR = field(1, 2, Buffer.from('stderr'));


export const localCodec: LogEncoder = {
  encode(msg, out) {
    const stream = msg.stream === 'stdout' ? LOCAL_STDOUT : LOCAL_STDERR;
    const lineField = msg.line.length > 0 ? Buffer.concat([Buffer.from([0x1a]), varint(BigInt(msg.line.length))]) : undefined;
    let partial: Buffer | undefined;
    if (msg.partial !== undefined) {
      const meta: Buffer[] = [];
      if (msg.partial.last) meta.push(Buffer.from([0x08, 0x01]));
      meta.push(field(2, 2, Buffer.from(msg.partial.id)), Buffer.concat([Buffer.from([0x18]), varint(BigInt(msg.partial.ordinal))]));
      partial = Buffer.concat([Buffer.from([0x20, 0x01]), field(5, 2, Buffer.concat(meta))]);
    }
    const size = stream.length + 1 + msg.time.varint.length + (lineField === undefined ? 0 : lineField.length + msg.line.length) + (partial?.length ?? 0);
    out.putUInt32BE(size);
    out.put(stream);
    out.putByte(0x10);
    out.put(msg.time.varint);
    if (lineField !== undefined) {
      out.put(lineField);
      out.put(msg.line);
    }
    if (partial !== undefined) out.put(partial);
    out.putUInt32BE(size);
    out.endEntry();
  },
  decode(buf, emit) {
    let pos = 0;
    while (pos + 4 <= buf.length) {
      const size = buf.readUInt32BE(pos);
      if (pos + 8 + size > buf.length) break;
      const entry = parseLocalEntry(buf.subarray(pos + 4, pos + 4 + size));
      if (entry !== undefined) emit(entry);
      pos += 8 + size;
    }
    return pos;
  },
  async tailOffset(fh, size, entries) {
    const sizeField = Buffer.allocUnsafe(4);
    let end = size;
    let found = 0;
    while (end >= 8 && found < entries) {
      await fh.read(sizeField, 0, 4, end - 4);
      const start = end - 8 - sizeField.readUInt32BE(0);
      if (start < 0) break;
      end = start;
      found++;
    }
    return { offset: found < entries ? 0 : end, entries: found };
  },
};

function parseLocalEntry(body: Buffer): LogEntry | undefined {
  let stream: string | undefined;
  let timeNs = 0n;
  let line: Buffer = Buffer.alloc(0);
  let partial = false;
  let lastPiece = false;
  let pos = 0;
  while (pos < body.length) {
    const key = readVarint(body, pos);
    if (key === undefined) return undefined;
    pos = key.next;
    const fieldNumber = Number(key.value >> 3n);
    const wireType = Number(key.value & 7n);
    if (wireType === 0) {
      const v = readVarint(body, pos);
      if (v === undefined) return undefined;
      pos = v.next;
      if (fieldNumber === 2) timeNs = BigInt.asIntN(64, v.value);
      else if (fieldNumber === 4) partial = v.value !== 0n;
    } else if (wireType === 2) {
      const len = readVarint(body, pos);
      if (len === undefined || len.next + Number(len.value) > body.length) return undefined;
      const bytes = body.subarray(len.next, len.next + Number(len.value));
      pos = len.next + Number(len.value);
      if (fieldNumber === 1) stream = bytes.toString('utf8');
      else if (fieldNumber === 3) line = bytes;
      else if (fieldNumber === 5) lastPiece = partialIsLast(bytes);
    } else {
      return undefined;
    }
  }
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  // dockerd's decodeLogEntry: the newline goes back on a whole message and on a partial one's last piece
  const whole = !partial || lastPiece;
  return { stream, timeNs, time: formatRfc3339NanoFixed(timeNs), data: whole ? Buffer.concat([line, NEWLINE_BYTES]) : Buffer.from(line) };
}

/** PartialLogEntryMetadata's `last` (field 1, a varint). */
function partialIsLast(meta: Buffer): boolean {
  return meta.length >= 2 && meta[0] === 0x08 && meta[1] !== 0;
}

function field(number: number, wireType: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(BigInt((number << 3) | wireType)), varint(BigInt(bytes.length)), bytes]);
}

function varint(value: bigint): Buffer {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Buffer.from(out);
}

function readVarint(buf: Buffer, pos: number): { value: bigint; next: number } | undefined {
  let value = 0n;
  for (let shift = 0n, i = pos; i < buf.length && shift < 70n; i++, shift += 7n) {
    value |= BigInt(buf[i] & 0x7f) << shift;
    if ((buf[i] & 0x80) === 0) return { value, next: i + 1 };
  }
  return undefined;
}

// ---- k8s-file ----

export const k8sFileCodec: LogCodec = {
  decode: (buf, emit) =>
    decodeLines(buf, (line) => {
      const entry = parseK8sLine(line);
      if (entry !== undefined) emit(entry);
    }),
  tailOffset: newlineTailOffset,
};

/** One conmon record without its newline; undefined for a line that is not one. */
export function parseK8sLine(line: Buffer): (LogEntry & { full: boolean }) | undefined {
  const s1 = line.indexOf(0x20);
  if (s1 < 0) return undefined;
  const s2 = line.indexOf(0x20, s1 + 1);
  if (s2 < 0) return undefined;
  const streamName = line.toString('latin1', s1 + 1, s2);
  if (streamName !== 'stdout' && streamName !== 'stderr') return undefined;
  const tag = line[s2 + 1];
  const full = tag === 0x46; // F
  if (!full && tag !== 0x50) return undefined; // P
  if (s2 + 2 < line.length && line[s2 + 2] !== 0x20) return undefined;
  const timeNs = parseLogTime(line.toString('latin1', 0, s1));
  if (timeNs === undefined) return undefined;
  const text = line.subarray(Math.min(s2 + 3, line.length));
  const data = Buffer.allocUnsafe(text.length + (full ? 1 : 0));
  text.copy(data);
  if (full) data[text.length] = NEWLINE;
  return { stream: streamName, timeNs, time: formatRfc3339NanoFixed(timeNs), data, full };
}

// ---- shared ----

/** Calls `each` with every whole line (without its newline) at the start of buf; returns the bytes they took. */
function decodeLines(buf: Buffer, each: (line: Buffer) => void): number {
  let start = 0;
  for (let nl = buf.indexOf(NEWLINE); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
    each(buf.subarray(start, nl));
    start = nl + 1;
  }
  return start;
}

/**
 * Where the last `entries` lines begin, read backwards in blocks: just after the (entries+1)th
 * newline from the end, or the start of the file when it has fewer (and how many).
 */
async function newlineTailOffset(fh: FileHandle, size: number, entries: number): Promise<{ offset: number; entries: number }> {
  const block = Buffer.allocUnsafe(BLOCK_BYTES);
  let newlines = 0;
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - BLOCK_BYTES);
    const { bytesRead } = await fh.read(block, 0, end - start, start);
    let i = bytesRead;
    while (i > 0) {
      const nl = block.lastIndexOf(NEWLINE, i - 1);
      if (nl < 0) break;
      if (++newlines === entries + 1) return { offset: start + nl + 1, entries };
      i = nl;
    }
    end = start;
  }
  return { offset: 0, entries: newlines };
}

/** Nanoseconds since the epoch of an RFC 3339 time with an optional fraction and a zone. */
export function parseLogTime(text: string): bigint | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let seconds = BigInt(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000);
  if (zone !== 'Z') {
    const offsetMin = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6));
    seconds -= BigInt((zone[0] === '+' ? 1 : -1) * offsetMin * 60);
  }
  return seconds * NANOS_PER_SECOND + BigInt((frac ?? '').padEnd(9, '0'));
}
