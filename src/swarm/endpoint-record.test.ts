import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PortConfig_Protocol } from '../generated/libnetwork/agent_pb.js';
import { InvalidEndpointRecordError } from './endpoint-record-error.js';
import { decodeEndpointRecord, encodeEndpointRecord, endpointRecordFromJson, endpointRecordToJson, MAX_ENDPOINT_RECORD_BYTES } from './endpoint-record.js';

const FULL = {
  name: 'web.1',
  serviceName: 'web',
  serviceId: 'svc1',
  virtualIp: '10.0.0.2',
  endpointIp: '10.0.0.7',
  ingressPorts: [
    { name: 'http', protocol: PortConfig_Protocol.TCP, targetPort: 80, publishedPort: 8080 },
    { name: 'dns', protocol: PortConfig_Protocol.UDP, targetPort: 53, publishedPort: 30053 },
  ],
  aliases: ['web', 'front'],
  taskAliases: ['web.1'],
  serviceDisabled: true,
};

function bytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.replace(/\s/g, ''), 'hex'));
}

function rejects(input: Uint8Array, message: RegExp): void {
  assert.throws(() => decodeEndpointRecord(input), (err: unknown) => {
    assert.ok(err instanceof InvalidEndpointRecordError, `not an InvalidEndpointRecordError: ${String(err)}`);
    assert.equal(err.kind, 'invalidParameter');
    assert.match(err.message, message);
    return true;
  });
}

describe('decodeEndpointRecord on hostile input', () => {
  it('rejects truncation anywhere, naming what was cut', () => {
    const full = encodeEndpointRecord(FULL);
    let rejected = 0;
    for (let n = 0; n < full.length; n++) {
      try {
        decodeEndpointRecord(full.subarray(0, n));
      } catch (err) {
        assert.ok(err instanceof InvalidEndpointRecordError, `prefix ${n}: ${String(err)}`);
        assert.match(err.message, /truncated|cut short/, `prefix ${n}`);
        rejected++;
      }
    }
    // a prefix that ends between two fields is a shorter record; every other one is refused
    assert.ok(rejected > full.length / 2);
    rejects(bytes('0a 05 6162'), /EndpointRecord\.name \(field 1\) claims 5 bytes, but only 2 remain: the input is truncated \(at byte 1\)/);
    rejects(bytes('32 04 0a05 6162'), /PortConfig\.name \(field 1\) claims 5 bytes, but only 2 remain: libnetwork\.EndpointRecord\.ingress_ports \(field 6\) is cut short/);
    rejects(bytes('48 ff'), /service_disabled \(field 9\): a varint runs past the end: the input is truncated/);
    rejects(bytes('59 0102'), /unknown field 11 needs 8 bytes, but only 2 remain/);
    rejects(bytes('6b 0801'), /unknown field 13: its group has no end/);
  });

  it('rejects over-long varints and values past 64 bits, wherever they are', () => {
    rejects(bytes('48 ffffffffffffffffff ff 01'), /service_disabled \(field 9\): over-long varint \(more than 10 bytes\)/);
    rejects(bytes('48 ffffffffffffffffff 02'), /over-long varint \(10 bytes holding more than 64 bits\)/);
    rejects(bytes('50 8080808080808080808001'), /unknown field 10: over-long varint/);
    rejects(bytes('32 0c 18 ffffffffffffffffffff01'), /PortConfig\.target_port \(field 3\): over-long varint/);
    // a tag must fit in 32 bits
    rejects(bytes('ffffffff7f'), /a tag does not fit in 32 bits/);
    // 10 bytes with the top bit alone is still a 64-bit varint
    assert.equal(decodeEndpointRecord(bytes('48 ffffffffffffffffff 01')).serviceDisabled, true);
  });

  it('rejects a length past the end and a length that claims gigabytes', () => {
    rejects(bytes('3a 03 78'), /aliases \(field 7\) claims 3 bytes, but only 1 remain/);
    rejects(bytes('0a ffffffff0f 41'), /claims 4294967295 bytes, but only 1 remain/);
    rejects(bytes('0a ffffffffff01'), /EndpointRecord\.name \(field 1\): its length does not fit in 32 bits/);
    rejects(bytes('62 ffffffff07'), /unknown field 12 claims 2147483647 bytes/);
  });

  it('rejects each known field in a wrong wire type, naming it, as Docker does', () => {
    const wrong: [string, string, RegExp][] = [
      ['name', '08 01', /EndpointRecord\.name \(field 1\) has wire type 0 \(varint\), but its type needs 2 \(length-delimited\)/],
      ['endpoint_ip', '2d 01000000', /endpoint_ip \(field 5\) has wire type 5 \(32-bit\)/],
      ['ingress_ports', '30 01', /ingress_ports \(field 6\) has wire type 0/],
      ['aliases', '39 0000000000000000', /aliases \(field 7\) has wire type 1 \(64-bit\)/],
      ['service_disabled', '4a 0101', /service_disabled \(field 9\) has wire type 2 \(length-delimited\), but its type needs 0 \(varint\)/],
      ['a port protocol', '32 03 12 0100', /PortConfig\.protocol \(field 2\) has wire type 2/],
      ['a target port', '32 02 1d 00', /PortConfig\.target_port \(field 3\) has wire type 5/],
      ['a group for a known field', '0b 0c', /EndpointRecord\.name \(field 1\) has wire type 3 \(start group\)/],
    ];
    for (const [, input, message] of wrong) rejects(bytes(input), message);
  });

  it('rejects invalid UTF-8 in every string field', () => {
    for (const tag of ['0a', '12', '1a', '22', '2a', '3a', '42']) rejects(bytes(`${tag} 02 c328`), /is not valid UTF-8/);
    rejects(bytes('32 04 0a02eda0'), /PortConfig\.name \(field 1\) is not valid UTF-8 \(at byte 4\)/);
    // an unknown length-delimited field is bytes, not text: no UTF-8 rule
    assert.deepEqual(decodeEndpointRecord(bytes('62 01 ff')).$unknown?.length, 1);
  });

  it('rejects tags that cannot be', () => {
    rejects(bytes('00'), /a tag has field number 0/);
    rejects(bytes('0e'), /field 1 has wire type 6, which does not exist/);
    rejects(bytes('5c'), /unknown field 11: ends a group that never started/);
    rejects(bytes('5b 64'), /unknown field 11: its group is ended by the end tag of field 12/);
    rejects(bytes('5b'.repeat(40)), /groups nest more than 16 deep/);
  });

  it('refuses input over the size limit before reading it, and takes a lower limit', () => {
    const huge = new Uint8Array(MAX_ENDPOINT_RECORD_BYTES + 1);
    rejects(huge, /is 65537 bytes, more than the limit of 65536/);
    const record = encodeEndpointRecord(FULL);
    assert.throws(() => decodeEndpointRecord(record, { maxBytes: 10 }), /more than the limit of 10/);
    assert.throws(() => encodeEndpointRecord({ name: 'x'.repeat(MAX_ENDPOINT_RECORD_BYTES) }), /encodes to 65540 bytes, more than the limit/);
  });

  it('throws only InvalidEndpointRecordError on random corruption, and never hangs', () => {
    const full = encodeEndpointRecord(FULL);
    let seed = 1;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    for (let i = 0; i < 20000; i++) {
      const input = new Uint8Array(full);
      for (let k = 1 + Math.floor(random() * 4); k > 0; k--) input[Math.floor(random() * input.length)] = Math.floor(random() * 256);
      try {
        decodeEndpointRecord(input.subarray(0, Math.floor(random() * (input.length + 1))));
      } catch (err) {
        if (!(err instanceof InvalidEndpointRecordError)) assert.fail(`${Buffer.from(input).toString('hex')}: ${String(err)}`);
      }
    }
  });
});

describe('encodeEndpointRecord', () => {
  it('writes a canonical record: number order, defaults left out', () => {
    const hex = Buffer.from(encodeEndpointRecord({ serviceDisabled: false, aliases: ['a'], name: 'n', ingressPorts: [{ targetPort: 80 }] })).toString('hex');
    assert.equal(hex, '0a016e' + '32021850' + '3a0161');
    assert.equal(encodeEndpointRecord({}).length, 0);
  });

  it('round-trips, with unknown fields written back after the known ones', () => {
    const decoded = decodeEndpointRecord(bytes('5005 0a0161 3204 2807 1850'));
    assert.equal(Buffer.from(encodeEndpointRecord(decoded)).toString('hex'), '0a0161' + '3204' + '1850' + '2807' + '5005');
  });

  it('refuses what has no encoding, with a clear error', () => {
    assert.throws(() => encodeEndpointRecord({ aliases: ['ok', 'bad\uDC00'] }), /aliases\[1\] holds a lone UTF-16 surrogate/);
    assert.throws(() => encodeEndpointRecord({ ingressPorts: [{ targetPort: 2 ** 32 }] }), /cannot encode the endpoint record: .*target_port.*invalid uint32/);
    assert.equal(encodeEndpointRecord({ name: '🐳' }).length, 6);
  });
});

describe('the proto3 JSON mapping', () => {
  it('uses lowerCamelCase names and protocol names, and leaves defaults out', () => {
    const json = endpointRecordToJson({ ...FULL, ingressPorts: [...FULL.ingressPorts, { protocol: PortConfig_Protocol.SCTP, targetPort: 9 }] });
    // the record's own keys are already the JSON names; only the ports' protocols change form
    assert.deepEqual(json, {
      ...FULL,
      ingressPorts: [
        // TCP is the default, so left out like any other default
        { name: 'http', targetPort: 80, publishedPort: 8080 },
        { name: 'dns', protocol: 'UDP', targetPort: 53, publishedPort: 30053 },
        { protocol: 'SCTP', targetPort: 9 },
      ],
    });
    assert.deepEqual(Object.keys(json), ['name', 'serviceName', 'serviceId', 'virtualIp', 'endpointIp', 'ingressPorts', 'aliases', 'taskAliases', 'serviceDisabled']);
    assert.deepEqual(endpointRecordToJson({}), {});
  });

  it('reads its own output back, and also proto names, numbers as strings and enum numbers', () => {
    const record = decodeEndpointRecord(encodeEndpointRecord(FULL));
    assert.deepEqual(endpointRecordToJson(endpointRecordFromJson(endpointRecordToJson(record))), endpointRecordToJson(record));
    const fromProtoNames = endpointRecordFromJson({ service_name: 'web', ingress_ports: [{ protocol: 2, target_port: '53' }], task_aliases: ['t'] });
    assert.equal(fromProtoNames.serviceName, 'web');
    assert.deepEqual([fromProtoNames.ingressPorts[0].protocol, fromProtoNames.ingressPorts[0].targetPort], [PortConfig_Protocol.SCTP, 53]);
  });

  it('refuses unknown keys, unknown protocol names and wrong types with InvalidEndpointRecordError', () => {
    assert.throws(() => endpointRecordFromJson({ nme: 'x' }), { name: 'InvalidEndpointRecordError', message: /key "nme" is unknown/ });
    assert.throws(() => endpointRecordFromJson({ ingressPorts: [{ protocol: 'ICMP' }] }), { name: 'InvalidEndpointRecordError', message: /ICMP/ });
    assert.throws(() => endpointRecordFromJson({ ingressPorts: [{ targetPort: -1 }] }), { name: 'InvalidEndpointRecordError' });
    assert.throws(() => endpointRecordFromJson([]), { name: 'InvalidEndpointRecordError' });
  });
});
