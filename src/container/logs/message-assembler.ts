// Turns conmon's records into the messages dockerd's copier makes of a container's output
// (daemon/logger/copier.go): one per line, without its newline; a line of 16 KiB or more is cut into
// partial messages of 16 KiB that share the first one's time and an id, the last of them marked
// last; output that ends without a newline is a partial message of its own, not marked last.
//
// conmon's records follow its 8 KiB reads, not the lines: a P record is a piece that had no
// newline yet, F the rest of a line. So the pieces of each stream are gathered until the line ends.
import { randomBytes } from 'node:crypto';
import { parseK8sLine, type LogMessage, type LogStream } from './log-codecs.js';

/** dockerd's defaultBufSize: longer lines are cut into partial messages of this size */
export const MAX_MESSAGE_BYTES = 16 * 1024;

interface Pending {
  pieces: Buffer[];
  bytes: number;
  timeNs: bigint;
  /** set once a partial message of this line has gone out */
  partial?: { id: string; ordinal: number };
}

export class MessageAssembler {
  private rest: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<LogStream, Pending>();

  constructor(private readonly emit: (msg: LogMessage) => void) {}

  /** conmon's bytes as they come; records cut between two calls are joined. */
  push(chunk: Buffer): void {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    let start = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      const record = parseK8sLine(data.subarray(start, nl));
      start = nl + 1;
      if (record === undefined) continue;
      const text = record.full ? record.data.subarray(0, -1) : record.data;
      this.add(record.stream, record.timeNs, text, record.full);
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

  private add(stream: LogStream, timeNs: bigint, text: Buffer, lineEnds: boolean): void {
    let p = this.pending.get(stream);
    if (p === undefined) {
      p = { pieces: [], bytes: 0, timeNs };
      this.pending.set(stream, p);
    }
    p.pieces.push(text);
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
    if (p.partial === undefined) this.emit({ stream, timeNs, line });
    else this.emitPiece(stream, p, line, true);
    this.pending.delete(stream);
  }

  private emitPiece(stream: LogStream, p: Pending, line: Buffer, last: boolean): void {
    p.partial ??= { id: randomBytes(32).toString('hex'), ordinal: 0 };
    p.partial.ordinal++;
    this.emit({ stream, timeNs: p.timeNs, line: Buffer.from(line), partial: { id: p.partial.id, ordinal: p.partial.ordinal, last } });
  }
}
