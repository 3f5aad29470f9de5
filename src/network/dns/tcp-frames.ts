// DNS over TCP puts two length bytes before each message (RFC 1035 4.2.2, RFC 7766 8). A
// connection may carry several messages and split any of them across reads.

export class TcpFrames {
  private pending: Buffer = Buffer.alloc(0);

  /** The messages completed by `chunk`; at most one partial message (64 KiB) waits for the next. */
  push(chunk: Buffer): Buffer[] {
    let rest = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const messages: Buffer[] = [];
    while (rest.length >= 2) {
      const end = 2 + rest.readUInt16BE(0);
      if (rest.length < end) break;
      messages.push(rest.subarray(2, end));
      rest = rest.subarray(end);
    }
    this.pending = rest;
    return messages;
  }
}

export function frame(message: Buffer): Buffer {
  const length = Buffer.allocUnsafe(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}
