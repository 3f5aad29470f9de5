// Turns conmon's records into the messages dockerd's copier makes of a container's output
// (daemon/logger/copier.go): one per line, without its newline; a line of 16 KiB or more is cut into
// partial messages of 16 KiB that share the first one's time and an id, the last of them marked
// last; output that ends without a newline is a partial message of its own, not marked last.
//
// conmon's records follow its 8 KiB reads, not the lines: a P record is a piece that had no
// newline yet, F the rest of a line. So the pieces of each stream are gathered until the line ends.
// A record is `<time> <stdout|stderr> <F|P> <text>\n`; the records of one read share their time,
// which is parsed once.
import { randomBytes } from 'node:crypto';
import { logTime, parseLogTime, type LogMessage, type LogStream, type LogTime } from './log-codecs.js';

/** dockerd's defaultBufSize: longer lines are cut into partial messages of this size */
export const MAX_MESSAGE_BYTES = 16 * 1024;

const SPACE = 0x20;
const NEWLINE = 0x0a;

interface Pending {
  pieces: Buffer[];
  bytes: number;
  time: LogTime;
  /** set once a partial message of this line has gone out */
  partial?: { id: string; ordinal: number };
}

export class MessageAssembler {
  private rest: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<LogStream, Pending>();
  private lastTimeBytes: Buffer = Buffer.alloc(0);
  private lastTime: LogTime | undefined;

  /** `emit` takes each message as it is made; its line is valid only during the call. */
  constructor(private readonly emit: (msg: LogMessage) => void) {}

  /** conmon's bytes as they come; records cut between two calls are joined. */
  push(chunk: Buffer): void {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    let start = 0;
    for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
      this.record(data, start, nl);
      start = nl + 1;
    }
    this.rest = Buffer.from(data.subarray(start));
  }

  /** The output has ended: what waits for a newline goes out as a partial message. */
  end(): void {
    for (const [stream, p] of this.pending) {
      if (p.bytes > 0) this.emitPiece(stream, p, Buffer.concat(p.pieces, p.bytes), false);
    }
    this.pending.clear();
  }

  /** The record in data[start, nl); one that is not a record is skipped. */
  private record(data: Buffer, start: number, nl: number): void {
    const s1 = data.indexOf(SPACE, start);
    // `stdout` and `stderr` are both six letters: the tag is 8 bytes after the first space
    if (s1 < 0 || s1 + 8 >= nl + 1 || data[s1 + 7] !== SPACE) return;
    const stream = data[s1 + 4] === 0x6f ? 'stdout' : data[s1 + 4] === 0x65 ? 'stderr' : undefined;
    const tag = data[s1 + 8];
    if (stream === undefined || (tag !== 0x46 && tag !== 0x50)) return;
    const time = this.timeOf(data, start, s1);
    if (time === undefined) return;
    const text = data.subarray(Math.min(s1 + 10, nl), nl);
    const lineEnds = tag === 0x46;
    if (lineEnds && text.length < MAX_MESSAGE_BYTES && !this.pending.has(stream)) this.emit({ stream, time, line: text });
    else this.add(stream, time, text, lineEnds);
  }

  private timeOf(data: Buffer, start: number, end: number): LogTime | undefined {
    const same = this.lastTime !== undefined && end - start === this.lastTimeBytes.length && data.compare(this.lastTimeBytes, 0, this.lastTimeBytes.length, start, end) === 0;
    if (same) return this.lastTime;
    const ns = parseLogTime(data.toString('latin1', start, end));
    if (ns === undefined) return undefined;
    this.lastTimeBytes = Buffer.from(data.subarray(start, end));
    this.lastTime = logTime(ns);
    return this.lastTime;
  }

  private add(stream: LogStream, time: LogTime, text: Buffer, lineEnds: boolean): void {
    let p = this.pending.get(stream);
    if (p === undefined) {
      p = { pieces: [], bytes: 0, time };
      this.pending.set(stream, p);
    }
    // kept past this chunk: a copy
    p.pieces.push(Buffer.from(text));
    p.bytes += text.length;
    if (p.bytes >= MAX_MESSAGE_BYTES) {
      const all = Buffer.concat(p.pieces, p.bytes);
      let at = 0;
      for (; all.length - at >= MAX_MESSAGE_BYTES; at += MAX_MESSAGE_BYTES) this.emitPiece(stream, p, all.subarray(at, at + MAX_MESSAGE_BYTES), false);
      p.pieces = [all.subarray(at)];
      p.bytes = all.length - at;
    }
    if (!lineEnds) return;
    const line = p.pieces.length === 1 ? p.pieces[0] : Buffer.concat(p.pieces, p.bytes);
    if (p.partial === undefined) this.emit({ stream, time, line });
    else this.emitPiece(stream, p, line, true);
    this.pending.delete(stream);
  }

  private emitPiece(stream: LogStream, p: Pending, line: Buffer, last: boolean): void {
    p.partial ??= { id: randomBytes(32).toString('hex'), ordinal: 0 };
    p.partial.ordinal++;
    this.emit({ stream, time: p.time, line, partial: { id: p.partial.id, ordinal: p.partial.ordinal, last } });
  }
}
