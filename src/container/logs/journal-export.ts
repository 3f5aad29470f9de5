// Reads journalctl's export format (`journalctl -o export`, systemd's "Journal Export Format"),
// which `docker logs` of a journald container reads the journal through: entries one after the
// other, each ended by an empty line; a field is `NAME=value\n`, or, when the value is not printable
// text (a newline in it, binary bytes), `NAME\n`, its length as a 64-bit little-endian integer, the
// bytes and `\n`. An entry starts with the fields journalctl adds: __CURSOR, __REALTIME_TIMESTAMP
// (when journald received it, in microseconds: the time dockerd's reader gives a message),
// __MONOTONIC_TIMESTAMP, _BOOT_ID.

/** One journal entry: where it is, when journald got it, and its fields (the first value of each). */
export interface JournalRecord {
  cursor: string;
  realtimeUs: bigint;
  fields: ReadonlyMap<string, Buffer>;
}

const NEWLINE = 0x0a;
const EQUALS = 0x3d;

/** Takes the output in chunks as they come; gives back the entries made whole by each. */
export class JournalExportParser {
  private rest: Buffer = Buffer.alloc(0);
  private fields = new Map<string, Buffer>();

  push(chunk: Buffer): JournalRecord[] {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    const records: JournalRecord[] = [];
    let pos = 0;
    while (pos < data.length) {
      if (data[pos] === NEWLINE) {
        pos++;
        const record = this.record();
        if (record !== undefined) records.push(record);
        continue;
      }
      const nl = data.indexOf(NEWLINE, pos);
      if (nl < 0) break;
      const eq = data.indexOf(EQUALS, pos);
      if (eq >= 0 && eq < nl) {
        this.add(data.toString('utf8', pos, eq), data.subarray(eq + 1, nl));
        pos = nl + 1;
        continue;
      }
      // binary: NAME\n <le64 length> <bytes> \n
      if (data.length < nl + 1 + 8) break;
      const length = Number(data.readBigUInt64LE(nl + 1));
      const start = nl + 1 + 8;
      if (data.length < start + length + 1) break;
      this.add(data.toString('utf8', pos, nl), data.subarray(start, start + length));
      pos = start + length + 1;
    }
    this.rest = Buffer.from(data.subarray(pos));
    return records;
  }

  private add(name: string, value: Buffer): void {
    // kept past this chunk: a copy
    if (!this.fields.has(name)) this.fields.set(name, Buffer.from(value));
  }

  private record(): JournalRecord | undefined {
    const fields = this.fields;
    this.fields = new Map();
    const cursor = fields.get('__CURSOR')?.toString('utf8');
    const realtime = fields.get('__REALTIME_TIMESTAMP')?.toString('latin1');
    if (cursor === undefined || realtime === undefined || !/^\d+$/.test(realtime)) return undefined;
    return { cursor, realtimeUs: BigInt(realtime), fields };
  }
}
