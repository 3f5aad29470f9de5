// Extended attributes from PAX headers, as bytes. tar-stream decodes PAX values as UTF-8 text, which
// mangles binary values: security.capability, the xattr Docker's own layers carry, is binary, and one
// for cap_setuid (bit 7) holds a byte 0x80 that UTF-8 decoding turns into U+FFFD, which the kernel
// then refuses. PaxXattrScanner sits in the byte stream in front of tar-stream's extract, follows the
// same block structure and keeps the raw SCHILY.xattr.* values of each entry, keyed by the stream
// offset of the entry's data (tar-stream's header.byteOffset, a field its typings leave out). The
// applier checks that each raw value decodes to what tar-stream read, so the two parsers cannot
// silently disagree.
import { Transform, type TransformCallback } from 'node:stream';

const BLOCK = 512;
const XATTR_PREFIX = 'SCHILY.xattr.';
/** tar-stream refuses longer extended headers; so does the scanner (it stops looking) */
const MAX_EXTENDED_HEADER_BYTES = 4 * 1024 * 1024;

type PaxRecords = Map<string, Buffer>;

export class PaxXattrScanner extends Transform {
  private readonly found = new Map<number, Map<string, Buffer>>();
  private position = 0;
  private header = Buffer.alloc(0);
  /** data bytes (with padding) to pass over before the next header */
  private skipBytes = 0;
  /** an extended header's data being collected */
  private collecting: { type: 'x' | 'g'; size: number; chunks: Buffer[]; have: number } | undefined;
  private global: PaxRecords | undefined;
  private pending: PaxRecords | undefined;
  /** set when the stream stops looking like a tar; tar-stream reports the error, the scanner just stops */
  private lost = false;

  /** The raw SCHILY.xattr.* values (name without the prefix → bytes) of the entry whose data starts at `byteOffset`. */
  xattrsAt(byteOffset: number): Map<string, Buffer> | undefined {
    const xattrs = this.found.get(byteOffset);
    this.found.delete(byteOffset);
    return xattrs;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.lost) this.scan(chunk);
    callback(null, chunk);
  }

  private scan(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.lost) {
      if (this.skipBytes > 0) {
        const n = Math.min(this.skipBytes, chunk.length - at);
        this.skipBytes -= n;
        at += n;
        continue;
      }
      if (this.collecting) {
        const c = this.collecting;
        const n = Math.min(c.size - c.have, chunk.length - at);
        c.chunks.push(chunk.subarray(at, at + n));
        c.have += n;
        at += n;
        if (c.have === c.size) this.finishExtendedHeader(c.type, Buffer.concat(c.chunks));
        continue;
      }
      const n = Math.min(BLOCK - this.header.length, chunk.length - at);
      this.header = Buffer.concat([this.header, chunk.subarray(at, at + n)]);
      at += n;
      this.position += n;
      if (this.header.length === BLOCK) {
        const block = this.header;
        this.header = Buffer.alloc(0);
        this.readHeader(block);
      }
    }
  }

  private readHeader(block: Buffer): void {
    // tar-stream skips a block whose checksum is that of an all-zero header (the end-of-archive blocks)
    if (checksum(block) === 8 * 32) return;
    const typeflag = block[156];
    const size = readNumber(block.subarray(124, 136));
    if (size === undefined || size < 0) {
      this.lost = true;
      return;
    }
    const dataOffset = this.position;
    if (typeflag === 0x78 /* x */ || typeflag === 0x67 /* g */) {
      if (size > MAX_EXTENDED_HEADER_BYTES) {
        this.lost = true;
        return;
      }
      this.position += size + padding(size);
      this.collecting = { type: typeflag === 0x78 ? 'x' : 'g', size, chunks: [], have: 0 };
      if (size === 0) this.finishExtendedHeader(this.collecting.type, Buffer.alloc(0));
      return;
    }
    if (typeflag === 0x4c /* L */ || typeflag === 0x4e /* N */ || typeflag === 0x4b /* K */) {
      this.skip(size + padding(size));
      return;
    }
    // an entry: the PAX records read since the last entry are its own
    const records = this.pending;
    this.pending = undefined;
    let dataSize = size;
    const paxSize = records?.get('size')?.toString('utf8');
    if (paxSize) dataSize = parseInt(paxSize, 10);
    if (!(dataSize >= 0)) {
      this.lost = true;
      return;
    }
    const xattrs = records && xattrsOf(records);
    if (xattrs && xattrs.size > 0) this.found.set(dataOffset, xattrs);
    // as tar-stream: a directory's size is ignored, any other entry's data follows it
    if (!isDirectory(block, typeflag)) this.skip(dataSize + padding(dataSize));
  }

  private skip(bytes: number): void {
    this.skipBytes = bytes;
    this.position += bytes;
  }

  private finishExtendedHeader(type: 'x' | 'g', data: Buffer): void {
    this.collecting = undefined;
    this.skipBytes = padding(data.length);
    const records = parsePaxRecords(data);
    if (type === 'g') {
      this.global = records;
    } else {
      // tar-stream: the last per-entry header wins, over the global one
      this.pending = new Map([...(this.global ?? []), ...records]);
    }
  }
}

function xattrsOf(records: PaxRecords): Map<string, Buffer> {
  const xattrs = new Map<string, Buffer>();
  for (const [key, value] of records) {
    if (key.startsWith(XATTR_PREFIX)) xattrs.set(key.slice(XATTR_PREFIX.length), value);
  }
  return xattrs;
}

/** `LEN KEY=VALUE\n` records, the values kept as bytes; stops where tar-stream's decodePax stops. */
function parsePaxRecords(data: Buffer): PaxRecords {
  const records: PaxRecords = new Map();
  let rest = data;
  while (rest.length > 0) {
    let space = 0;
    while (space < rest.length && rest[space] !== 0x20) space++;
    const length = parseInt(rest.subarray(0, space).toString('utf8'), 10);
    if (!length) break;
    const record = rest.subarray(space + 1, length - 1);
    const equals = record.indexOf(0x3d);
    if (equals === -1) break;
    records.set(record.subarray(0, equals).toString('utf8'), Buffer.from(record.subarray(equals + 1)));
    rest = rest.subarray(length);
  }
  return records;
}

function isDirectory(block: Buffer, typeflag: number | undefined): boolean {
  if (typeflag === 0x35 /* 5 */) return true;
  if (typeflag !== 0 && typeflag !== 0x30 /* 0 */) return false;
  // old tars mark directories with a trailing slash; with a ustar prefix the name is prefix/name
  const nameEnd = block.subarray(0, 100).indexOf(0);
  const name = block.subarray(0, nameEnd === -1 ? 100 : nameEnd);
  if (name.length > 0) return name[name.length - 1] === 0x2f;
  return block.subarray(257, 263).toString('latin1') === 'ustar\0' && block[345] !== 0;
}

function padding(size: number): number {
  const over = size % BLOCK;
  return over === 0 ? 0 : BLOCK - over;
}

function checksum(block: Buffer): number {
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += block[i];
  for (let i = 156; i < BLOCK; i++) sum += block[i];
  return sum;
}

/** A numeric header field: octal text, or base-256 when the first byte has its top bit set. */
function readNumber(field: Buffer): number | undefined {
  if (field[0] & 0x80) {
    if (field[0] !== 0x80) return undefined;
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i];
    return n;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  const n = parseInt(text, 8);
  return Number.isNaN(n) ? undefined : n;
}
