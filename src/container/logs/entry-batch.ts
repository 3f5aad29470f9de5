// The encoded entries of one read of the log pipe, in one growing buffer, with where each ends (a
// rotation falls between entries). Reused from read to read: a chatty container's log is written
// without a buffer per line.
export class EntryBatch {
  // small for the many quiet containers; a chatty one grows it to what a read of its pipe makes
  private buf = Buffer.allocUnsafe(16 * 1024);
  length = 0;
  /** the offset just past each entry */
  readonly ends: number[] = [];

  put(bytes: Buffer): void {
    this.ensure(bytes.length);
    bytes.copy(this.buf, this.length);
    this.length += bytes.length;
  }

  putByte(byte: number): void {
    this.ensure(1);
    this.buf[this.length++] = byte;
  }

  putUInt32BE(value: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(value, this.length);
    this.length += 4;
  }

  endEntry(): void {
    this.ends.push(this.length);
  }

  /** The bytes so far; valid until the next reset. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
    this.ends.length = 0;
  }

  private ensure(more: number): void {
    if (this.length + more <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + more));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }
}
