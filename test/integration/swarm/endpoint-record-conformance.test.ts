// berth's EndpointRecord codec against protoc on the same .proto: for every case, berth's bytes
// equal protoc's, berth decodes protoc's bytes to the same message, and protoc reads berth's bytes
// back to the same message (its decoding, encoded again by protoc, gives berth's bytes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { equals } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { decodeEndpointRecord, encodeEndpointRecord, endpointRecordFromJson, endpointRecordToJson, type EndpointRecordInit } from '../../../src/swarm/endpoint-record.js';
import { EndpointRecordSchema, type PortConfig_Protocol } from '../../../src/generated/libnetwork/agent_pb.js';
import { BATCH, batchText, protoc, protocDecode, protocEncode, RECORD, recordText } from '../../helpers/protoc.js';

const TCP = 0;
const UDP = 1;
const SCTP = 2;

const TABLE: [string, EndpointRecordInit][] = [
  ['the empty record', {}],
  [
    'every field set',
    {
      name: 'web.1.x3f9',
      serviceName: 'web',
      serviceId: 'kq2m4r7d0pq1',
      virtualIp: '10.0.0.2',
      endpointIp: '10.0.0.7',
      ingressPorts: [{ name: 'http', protocol: TCP, targetPort: 80, publishedPort: 8080 }],
      aliases: ['web', 'frontend'],
      taskAliases: ['web.1'],
      serviceDisabled: true,
    },
  ],
  ['each protocol', { ingressPorts: [TCP, UDP, SCTP].map((protocol) => ({ protocol, targetPort: 53, publishedPort: 30053 })) }],
  ['a protocol value the schema does not name', { ingressPorts: [{ protocol: 7 as PortConfig_Protocol, targetPort: 1 }] }],
  [
    'repeated ports and aliases',
    {
      ingressPorts: Array.from({ length: 12 }, (_, i) => ({ name: `p${i}`, targetPort: 8000 + i, publishedPort: 30000 + i })),
      aliases: Array.from({ length: 20 }, (_, i) => `alias-${i}`),
      taskAliases: ['', 'same', 'same'],
    },
  ],
  ['unicode in every string', { name: 'héllo', serviceName: 'сервис', serviceId: '服务', virtualIp: '🐳', endpointIp: 'ι', aliases: ['𝔘𝔫𝔦'], ingressPorts: [{ name: 'ü' }] }],
  ['zero values written out', { name: '', serviceDisabled: false, ingressPorts: [{ name: '', protocol: TCP, targetPort: 0, publishedPort: 0 }] }],
  ['a port with only zero values', { ingressPorts: [{}] }],
  ['the highest ports', { ingressPorts: [{ targetPort: 65535, publishedPort: 65535 }] }],
  ['uint32 at its limit', { ingressPorts: [{ targetPort: 4294967295, publishedPort: 2147483648 }] }],
  ['empty strings in repeated fields', { aliases: ['', ''], taskAliases: [''] }],
  ['control characters and quotes', { name: '\u0000\n"\\\t\u007f', aliases: ["'"] }],
  ['a long string (multi-byte length)', { name: 'n'.repeat(300), serviceId: 'i'.repeat(20000) }],
  ['fields given out of number order', { serviceDisabled: true, aliases: ['b'], name: 'n', ingressPorts: [{ publishedPort: 2, targetPort: 1, name: 'x' }] }],
];

function assertConforms(record: EndpointRecordInit): void {
  const ours = encodeEndpointRecord(record);
  const theirs = protocEncode(RECORD, recordText(record));
  assert.equal(hex(ours), hex(theirs), 'berth and protoc write different bytes');
  assert.ok(equals(EndpointRecordSchema, decodeEndpointRecord(theirs), decodeEndpointRecord(ours)));
  assert.deepEqual(endpointRecordToJson(decodeEndpointRecord(theirs)), endpointRecordToJson(record));
  assert.equal(hex(protocEncode(RECORD, protocDecode(RECORD, ours))), hex(ours), 'protoc reads berth bytes as another message');
}

describe('EndpointRecord against protoc', () => {
  for (const [name, record] of TABLE) it(name, () => assertConforms(record));

  it('decodes fields in any order, as protoc does, and encodes them in number order', () => {
    // name=3 "b"; aliases "x"; service_name "s"; name again (last one wins); port out of order
    const scrambled = bytes('3a0178', '120173', '0a0161', '3205' + '1850' + '0a0170', '0a0162', '4801');
    const ours = decodeEndpointRecord(scrambled);
    assert.equal(ours.name, 'b');
    assert.equal(hex(encodeEndpointRecord(ours)), hex(protocEncode(RECORD, protocDecode(RECORD, scrambled))));
  });

  it('keeps unknown fields of every wire type and writes them back after the known ones', () => {
    const unknown = [
      '5005', // 10: varint
      '59' + '0102030405060708', // 11: 64-bit
      '62' + '03616263', // 12: length-delimited
      '6b' + '0801' + '6c', // 13: a group holding 1: 1
      '75' + '01000000', // 14: 32-bit
      'f80701', // 127: varint with a two-byte tag
    ];
    for (const field of unknown) {
      const input = bytes('0a0161', field, '3205' + '0a0170' + '2801' /* a port with an unknown field 5 */, '3a0178');
      const record = decodeEndpointRecord(input);
      assert.equal(record.name, 'a');
      assert.deepEqual(record.aliases, ['x']);
      const again = encodeEndpointRecord(record);
      // protoc prints known fields in number order, then unknown ones in the order they came
      assert.equal(protocDecode(RECORD, again), protocDecode(RECORD, input), `field ${field}`);
      assert.equal(hex(again), hex(bytes('0a0161', '3205' + '0a0170' + '2801', '3a0178', field)));
    }
  });

  it('matches protoc on a few thousand random records, each way', () => {
    const random = seededRandom(0x5eed);
    const records = Array.from({ length: 3000 }, () => randomRecord(random));
    const ours = records.map((r) => encodeEndpointRecord(r));

    const theirs = splitBatch(protocEncode(BATCH, batchText(records)));
    assert.equal(theirs.length, records.length);
    for (let i = 0; i < records.length; i++) {
      assert.equal(hex(ours[i]), hex(theirs[i]), `record ${i}: ${JSON.stringify(records[i])}`);
      assert.ok(equals(EndpointRecordSchema, decodeEndpointRecord(theirs[i]), endpointRecordFromJson(endpointRecordToJson(records[i]))), `record ${i}`);
    }

    const ourBatch = joinBatch(ours);
    assert.equal(hex(protocEncode(BATCH, protocDecode(BATCH, ourBatch))), hex(ourBatch));
  });

  it('agrees with protoc in rejecting truncated input and over-long varints', () => {
    const full = encodeEndpointRecord(TABLE[1][1]);
    const cases = [
      ['a string cut short', full.subarray(0, 5)],
      ['a port cut short', bytes('3206', '1850')],
      ['a length past the end', bytes('0a05', '6162')],
      ['an 11-byte varint', bytes('48', 'ffffffffffffffffffff01')],
      ['a tag cut short', bytes('80')],
    ] as const;
    for (const [name, input] of cases) {
      assert.equal(protoc('decode', RECORD, input).ok, false, `protoc accepted ${name}`);
      assert.throws(() => decodeEndpointRecord(input), { name: 'InvalidEndpointRecordError' }, name);
    }
  });

  it('rejects a known field in the wrong wire type, as Docker does, where protoc keeps it as unknown', () => {
    const input = bytes('0805'); // name (a string) as a varint
    assert.equal(protoc('decode', RECORD, input).ok, true);
    assert.throws(() => decodeEndpointRecord(input), /EndpointRecord\.name \(field 1\) has wire type 0 \(varint\), but its type needs 2/);
  });
});

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

function bytes(...parts: string[]): Uint8Array {
  return new Uint8Array(Buffer.from(parts.join(''), 'hex'));
}

function splitBatch(batch: Uint8Array): Uint8Array[] {
  const reader = new BinaryReader(batch);
  const out: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    assert.deepEqual([no, wireType], [1, WireType.LengthDelimited]);
    out.push(reader.bytes());
  }
  return out;
}

function joinBatch(records: Uint8Array[]): Uint8Array {
  const writer = new BinaryWriter();
  for (const r of records) writer.tag(1, WireType.LengthDelimited).bytes(r);
  return writer.finish();
}

/** mulberry32: the same records on every run. */
function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz0123456789-.', 'ÄÖÜßéñç', 'водка', '网络服务', '🐳🚢⚓', '\u0000\u0001\n\t"\\\''];

function randomRecord(random: () => number): EndpointRecordInit {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const maybe = <T>(make: () => T): T | undefined => (random() < 0.6 ? make() : undefined);
  const text = (max: number) => {
    const alphabet = [...pick(ALPHABETS)];
    return Array.from({ length: Math.floor(random() * max) }, () => pick(alphabet)).join('');
  };
  const port = () => pick([0, 1, 80, 443, 8080, 30000, 32767, 65535, Math.floor(random() * 65536), Math.floor(random() * 4294967296)]);
  const list = <T>(max: number, make: () => T) => Array.from({ length: Math.floor(random() * (max + 1)) }, make);
  const record: EndpointRecordInit = {
    name: maybe(() => text(40)),
    serviceName: maybe(() => text(20)),
    serviceId: maybe(() => text(25)),
    virtualIp: maybe(() => `10.${Math.floor(random() * 256)}.0.${Math.floor(random() * 256)}`),
    endpointIp: maybe(() => text(39)),
    ingressPorts: maybe(() =>
      list(5, () => ({ name: maybe(() => text(15)), protocol: maybe(() => pick([TCP, UDP, SCTP])), targetPort: maybe(port), publishedPort: maybe(port) })),
    ),
    aliases: maybe(() => list(4, () => text(30))),
    taskAliases: maybe(() => list(4, () => text(30))),
    serviceDisabled: maybe(() => random() < 0.5),
  };
  // text format has no way to say "not set"; leave unset fields out, in a random order
  const entries = Object.entries(record).filter(([, v]) => v !== undefined);
  entries.sort(() => random() - 0.5);
  return Object.fromEntries(entries) as EndpointRecordInit;
}
