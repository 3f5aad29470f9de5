import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJournalField, JournalEntryEncoder, journalFieldNameValid, sanitizeJournalKey } from './journal-native.js';
import { logTime, type LogMessage } from './log-codecs.js';

const text = (b: Buffer) => b.toString('latin1');
const message = (m: Partial<LogMessage>): LogMessage => ({ stream: 'stdout', time: logTime(0n), line: Buffer.from('hello'), ...m });

describe("journald's native protocol as go-systemd's journal.Send writes it", () => {
  it('a value without a newline: NAME=value and a newline', () => {
    assert.equal(text(encodeJournalField('MESSAGE', 'hello world')), 'MESSAGE=hello world\n');
    assert.equal(text(encodeJournalField('MESSAGE', '')), 'MESSAGE=\n');
    // bytes go as they are: container output need not be UTF-8
    assert.deepEqual(encodeJournalField('MESSAGE', Buffer.from([0xff, 0x00, 0x3d])), Buffer.from([...Buffer.from('MESSAGE='), 0xff, 0x00, 0x3d, 0x0a]));
  });

  it('a value with a newline: the name, a newline, the length as 64-bit little-endian, the value and a newline', () => {
    const field = encodeJournalField('MESSAGE', 'multi\nline');
    const expected = Buffer.concat([Buffer.from('MESSAGE\n'), Buffer.from([10, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('multi\nline\n')]);
    assert.deepEqual(field, expected);
  });

  it('an entry: PRIORITY (6 stdout, 3 stderr), MESSAGE, then the container\'s fields', () => {
    const encoder = new JournalEntryEncoder({ CONTAINER_ID: '003932c78794', CONTAINER_NAME: 'r1', SYSLOG_IDENTIFIER: '003932c78794' });
    assert.equal(text(encoder.encode(message({}))), 'PRIORITY=6\nMESSAGE=hello\nCONTAINER_ID=003932c78794\nCONTAINER_NAME=r1\nSYSLOG_IDENTIFIER=003932c78794\n');
    assert.equal(text(encoder.encode(message({ stream: 'stderr', line: Buffer.from('err1') }))), 'PRIORITY=3\nMESSAGE=err1\nCONTAINER_ID=003932c78794\nCONTAINER_NAME=r1\nSYSLOG_IDENTIFIER=003932c78794\n');
  });

  it('a partial message: its id, ordinal and last, and CONTAINER_PARTIAL_MESSAGE=true on all but the last piece (the reference\'s fields)', () => {
    const encoder = new JournalEntryEncoder({});
    const id = '912acef576c85e28b8c1e173b1b9a997bc3562231cc2afd6e5a7bdbc398a6614';
    const first = text(encoder.encode(message({ line: Buffer.from('aaa'), partial: { id, ordinal: 1, last: false } })));
    assert.equal(first, `PRIORITY=6\nMESSAGE=aaa\nCONTAINER_PARTIAL_ID=${id}\nCONTAINER_PARTIAL_ORDINAL=1\nCONTAINER_PARTIAL_LAST=false\nCONTAINER_PARTIAL_MESSAGE=true\n`);
    const last = text(encoder.encode(message({ line: Buffer.from('a'), partial: { id, ordinal: 3, last: true } })));
    assert.equal(last, `PRIORITY=6\nMESSAGE=a\nCONTAINER_PARTIAL_ID=${id}\nCONTAINER_PARTIAL_ORDINAL=3\nCONTAINER_PARTIAL_LAST=true\n`);
  });

  it('fields journald would drop are left out: an empty name would even end the entry', () => {
    const encoder = new JournalEntryEncoder({ '': 'multi\nline', '1ABC': 'x', ['K'.repeat(65)]: 'y', OK_1: 'z', ['K'.repeat(64)]: 'kept' });
    assert.equal(text(encoder.encode(message({}))), `PRIORITY=6\nMESSAGE=hello\nOK_1=z\n${'K'.repeat(64)}=kept\n`);
  });

  it('the largest entry: a 16 KiB piece in the binary form, with the partial fields', () => {
    const encoder = new JournalEntryEncoder({ CONTAINER_ID: '003932c78794' });
    const fixed = 'PRIORITY=6\n'.length + 'CONTAINER_ID=003932c78794\n'.length;
    const messageBytes = 'MESSAGE\n'.length + 8 + 16384 + 1;
    const partial = `CONTAINER_PARTIAL_ID=${'f'.repeat(64)}\n`.length + `CONTAINER_PARTIAL_ORDINAL=${Number.MAX_SAFE_INTEGER}\n`.length + 'CONTAINER_PARTIAL_LAST=false\n'.length + 'CONTAINER_PARTIAL_MESSAGE=true\n'.length;
    assert.equal(encoder.maxEntryBytes(), fixed + messageBytes + partial);
  });
});

describe("dockerd's sanitizeKeyMod and journald's field names", () => {
  it('upper-cases, turns anything but letters and digits into _, drops leading underscores', () => {
    // the reference's fields for --label com.example.Foo=bar --label _x.y=z
    assert.equal(sanitizeJournalKey('com.example.Foo'), 'COM_EXAMPLE_FOO');
    assert.equal(sanitizeJournalKey('_x.y'), 'X_Y');
    assert.equal(sanitizeJournalKey('MY_VAR'), 'MY_VAR');
    assert.equal(sanitizeJournalKey('__a__b'), 'A__B');
    assert.equal(sanitizeJournalKey('...'), '');
    assert.equal(sanitizeJournalKey('1st-key'), '1ST_KEY');
    assert.equal(sanitizeJournalKey('é'), '');
    assert.equal(sanitizeJournalKey('aé'), 'A_');
  });

  it('a name journald takes: A-Z first, then A-Z, 0-9 and _, at most 64', () => {
    assert.ok(journalFieldNameValid('CONTAINER_ID'));
    assert.ok(journalFieldNameValid('X_Y'));
    assert.ok(!journalFieldNameValid(''));
    assert.ok(!journalFieldNameValid('_PID'));
    assert.ok(!journalFieldNameValid('1ST_KEY'));
    assert.ok(!journalFieldNameValid('lower'));
    assert.ok(!journalFieldNameValid('K'.repeat(65)));
  });
});
