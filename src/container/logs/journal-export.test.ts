import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JournalExportParser, type JournalRecord } from './journal-export.js';

const CURSOR_1 = 's=508fe6f0eec24b11bae201126827d0cd;i=1fc;b=ef9b5e2a9b43479984026196b83473cd;m=9e5301c67;t=66126ad6c9935;x=5c2ad6fdca15a09a';
const CURSOR_2 = 's=508fe6f0eec24b11bae201126827d0cd;i=1fd;b=ef9b5e2a9b43479984026196b83473cd;m=9e5301d8e;t=66126ad6c9a5d;x=be78b3ef749f48d3';

function binary(name: string, value: Buffer): Buffer {
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(value.length));
  return Buffer.concat([Buffer.from(`${name}\n`), length, value, Buffer.from('\n')]);
}

/** `journalctl -o export --output-fields=MESSAGE,PRIORITY` of two entries, the second's MESSAGE in the binary form */
const EXPORT = Buffer.concat([
  Buffer.from(`__CURSOR=${CURSOR_1}\n__REALTIME_TIMESTAMP=1795668606490933\n__MONOTONIC_TIMESTAMP=42499841127\n_BOOT_ID=ef9b5e2a9b43479984026196b83473cd\nPRIORITY=6\nMESSAGE=out1\n\n`),
  Buffer.from(`__CURSOR=${CURSOR_2}\n__REALTIME_TIMESTAMP=1795668606491229\n__MONOTONIC_TIMESTAMP=42499841422\n_BOOT_ID=ef9b5e2a9b43479984026196b83473cd\nPRIORITY=3\n`),
  binary('MESSAGE', Buffer.from('multi\nline=\n\n')),
  Buffer.from('\n'),
]);

function summary(records: JournalRecord[]) {
  return records.map((r) => ({ cursor: r.cursor, realtimeUs: r.realtimeUs, priority: r.fields.get('PRIORITY')?.toString(), message: r.fields.get('MESSAGE')?.toString() }));
}

describe("journalctl's export format", () => {
  it('reads text and binary fields; each entry ends with an empty line', () => {
    const records = new JournalExportParser().push(EXPORT);
    assert.deepEqual(summary(records), [
      { cursor: CURSOR_1, realtimeUs: 1795668606490933n, priority: '6', message: 'out1' },
      { cursor: CURSOR_2, realtimeUs: 1795668606491229n, priority: '3', message: 'multi\nline=\n\n' },
    ]);
  });

  it('gives the same entries whatever the chunks it comes in, one byte at a time too', () => {
    const whole = summary(new JournalExportParser().push(EXPORT));
    for (const size of [1, 3, 7, 64]) {
      const parser = new JournalExportParser();
      const records: JournalRecord[] = [];
      for (let at = 0; at < EXPORT.length; at += size) records.push(...parser.push(EXPORT.subarray(at, at + size)));
      assert.deepEqual(summary(records), whole, `chunks of ${size}`);
    }
  });

  it('an entry not yet ended is kept for the next chunk; an empty MESSAGE is a value', () => {
    const parser = new JournalExportParser();
    assert.deepEqual(parser.push(Buffer.from(`__CURSOR=${CURSOR_1}\n__REALTIME_TIMESTAMP=5\nMESSAGE=\n`)), []);
    const [record] = parser.push(Buffer.from('\n'));
    assert.equal(record.fields.get('MESSAGE')?.length, 0);
    assert.equal(record.realtimeUs, 5n);
  });

  it('the first value of a field that comes twice is kept (a label named "message" sends a second MESSAGE)', () => {
    const [record] = new JournalExportParser().push(Buffer.from(`__CURSOR=${CURSOR_1}\n__REALTIME_TIMESTAMP=5\nMESSAGE=out\nMESSAGE=label\n\n`));
    assert.equal(record.fields.get('MESSAGE')?.toString(), 'out');
  });
});
