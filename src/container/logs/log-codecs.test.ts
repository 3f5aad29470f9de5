import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { EntryBatch } from './entry-batch.js';
import { goJsonString, jsonFileCodec, localCodec, logTime, type LogEncoder, type LogEntry, type LogMessage } from './log-codecs.js';

/** The entries of these messages, as the writer would append them. */
function encoded(codec: LogEncoder, ...msgs: LogMessage[]): Buffer {
  const batch = new EntryBatch();
  for (const m of msgs) codec.encode(m, batch);
  return Buffer.from(batch.bytes());
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'berth-codecs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TIME = 1_764_122_491_498_591_340n;
const messages: LogMessage[] = [
  { stream: 'stdout', time: logTime(TIME), line: Buffer.from('one') },
  { stream: 'stderr', time: logTime(TIME + 1n), line: Buffer.from('') },
  { stream: 'stdout', time: logTime(TIME + 2n), line: Buffer.from('piece'), partial: { id: 'a'.repeat(64), ordinal: 1, last: false } },
  { stream: 'stdout', time: logTime(TIME + 2n), line: Buffer.from('end'), partial: { id: 'a'.repeat(64), ordinal: 2, last: true } },
];

function decodeAll(codec: LogEncoder, data: Buffer): LogEntry[] {
  const out: LogEntry[] = [];
  assert.equal(codec.decode(data, (e) => out.push(e)), data.length);
  return out;
}

describe('json-file', () => {
  it("writes dockerd's lines: no log field when empty, the newline on whole and last messages, RFC3339Nano", () => {
    const codec = jsonFileCodec();
    assert.equal(encoded(codec, messages[0]).toString(), '{"log":"one\\n","stream":"stdout","time":"2025-11-26T02:01:31.49859134Z"}\n');
    assert.equal(encoded(codec, { ...messages[0], line: Buffer.alloc(0), partial: { id: 'x', ordinal: 1, last: false } }).toString(), '{"stream":"stdout","time":"2025-11-26T02:01:31.49859134Z"}\n');
    assert.equal(encoded(jsonFileCodec({ b: '2', a: '<1>' }), { ...messages[0], time: logTime(1_764_122_491_000_000_000n) }).toString(), '{"log":"one\\n","stream":"stdout","attrs":{"a":"\\u003c1\\u003e","b":"2"},"time":"2025-11-26T02:01:31Z"}\n');
  });

  it("escapes as Go's encoder: HTML characters, controls, U+2028, each invalid byte as \\ufffd", () => {
    assert.equal(goJsonString(Buffer.from('a<b>&"\\\t\r\n\u2028é')), '"a\\u003cb\\u003e\\u0026\\"\\\\\\u0009\\r\\n\\u2028é"');
    assert.equal(goJsonString(Buffer.from([0x61, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80])), '"a\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd"');
  });

  it('reads back what it wrote', () => {
    const codec = jsonFileCodec({ tag: 't' });
    const entries = decodeAll(codec, encoded(codec, ...messages));
    assert.deepEqual(entries.map((e) => [e.stream, e.timeNs, e.data.toString()]), [
      ['stdout', TIME, 'one\n'],
      ['stderr', TIME + 1n, '\n'],
      ['stdout', TIME + 2n, 'piece'],
      ['stdout', TIME + 2n, 'end\n'],
    ]);
  });
});

describe('local', () => {
  it("writes dockerd's framing and protobuf entry, byte for byte", () => {
    // what dockerd 20.10's local driver wrote for `printf tail-no-nl`
    const id = 'dee86975c9400b857893c2f4d8c05f0fd42a2da52f09899077d9a9390ece8a55';
    const expected = Buffer.concat([
      Buffer.from('00000066', 'hex'),
      Buffer.from('0a067374646f757410858d83d597bdddf5181a0a7461696c2d6e6f2d6e6c2001', 'hex'),
      Buffer.from('2a44', 'hex'),
      Buffer.concat([Buffer.from('1240', 'hex'), Buffer.from(id), Buffer.from('1801', 'hex')]),
      Buffer.from('00000066', 'hex'),
    ]);
    const got = encoded(localCodec, { stream: 'stdout', time: logTime(1_795_658_522_082_461_317n), line: Buffer.from('tail-no-nl'), partial: { id, ordinal: 1, last: false } });
    assert.equal(got.toString('hex'), expected.toString('hex'));
  });

  it('reads back what it wrote, and finds the tail from the end', async () => {
    const data = encoded(localCodec, ...messages);
    assert.deepEqual(decodeAll(localCodec, data).map((e) => [e.stream, e.timeNs, e.data.toString()]), [
      ['stdout', TIME, 'one\n'],
      ['stderr', TIME + 1n, '\n'],
      ['stdout', TIME + 2n, 'piece'],
      ['stdout', TIME + 2n, 'end\n'],
    ]);
    const file = path.join(dir, 'local.log');
    writeFileSync(file, data);
    const fh = await open(file);
    try {
      const two = await localCodec.tailOffset(fh, data.length, 2);
      assert.deepEqual(decodeAll(localCodec, data.subarray(two.offset)).map((e) => e.data.toString()), ['piece', 'end\n']);
      assert.deepEqual(await localCodec.tailOffset(fh, data.length, 9), { offset: 0, entries: 4 });
    } finally {
      await fh.close();
    }
  });
});
