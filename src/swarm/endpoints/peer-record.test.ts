// libnetwork's overlay PeerRecord against protoc (Debian's protobuf-compiler, as in
// test/helpers/protoc.ts) as the independent oracle: our bytes read by protoc, protoc's bytes read
// by us.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decodePeerRecord, encodePeerRecord } from './peer-record.js';

const SCHEMA = 'libnetwork/overlay.proto';

/** The repository: the first directory up from this module (built or bundled) with the schema. */
function repoRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'proto', SCHEMA))) return dir;
    if (dir === path.dirname(dir)) throw new Error(`no proto/${SCHEMA} above this test`);
  }
}

function protoc(mode: 'encode' | 'decode', input: Uint8Array | string): Buffer {
  const r = spawnSync('protoc', [`--${mode}=overlay.PeerRecord`, '-I', 'proto', SCHEMA], { cwd: repoRoot(), input });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `protoc --${mode} refused: ${r.stderr.toString()}`);
  return r.stdout;
}

describe('the overlay PeerRecord', () => {
  it('encodes as protoc reads it, field for field', () => {
    const bytes = encodePeerRecord({ endpointIp: '10.0.1.5/24', endpointMac: '02:42:0a:00:01:05', tunnelEndpointIp: '192.168.0.7' });
    assert.equal(protoc('decode', bytes).toString(), ['endpoint_ip: "10.0.1.5/24"', 'endpoint_mac: "02:42:0a:00:01:05"', 'tunnel_endpoint_ip: "192.168.0.7"', ''].join('\n'));
  });

  it("reads protoc's bytes, the address without its prefix length", () => {
    const bytes = protoc('encode', 'tunnel_endpoint_ip: "192.168.0.7"\nendpoint_mac: "02:42:0a:00:01:05"\nendpoint_ip: "10.0.1.5/24"\n');
    assert.deepEqual(decodePeerRecord(bytes), { endpointIp: '10.0.1.5', endpointMac: '02:42:0a:00:01:05', tunnelEndpointIp: '192.168.0.7' });
    // and its own, back
    assert.deepEqual(decodePeerRecord(encodePeerRecord({ endpointIp: '10.0.2.9/24', endpointMac: '02:42:0a:00:02:09', tunnelEndpointIp: '192.168.0.8' })), {
      endpointIp: '10.0.2.9',
      endpointMac: '02:42:0a:00:02:09',
      tunnelEndpointIp: '192.168.0.8',
    });
  });

  it('is nothing for bytes that are no record, or a record without IPv4 addresses or a MAC', () => {
    const record = (endpointIp: string, endpointMac: string, tunnelEndpointIp: string) => decodePeerRecord(encodePeerRecord({ endpointIp, endpointMac, tunnelEndpointIp }));
    // a length-delimited field cut short, and a wire type that does not exist
    assert.equal(decodePeerRecord(Uint8Array.of(0x0a, 0x05, 0x31, 0x30)), undefined);
    assert.equal(decodePeerRecord(Uint8Array.of(0x0f, 0x01)), undefined);
    assert.equal(decodePeerRecord(new Uint8Array()), undefined, 'every field empty');
    assert.equal(record('fd00::5/64', '02:42:0a:00:01:05', '192.168.0.7'), undefined);
    assert.equal(record('10.0.1.5/24', '02:42:0a:00:01:05', 'fd00::7'), undefined);
    assert.equal(record('10.0.1.5/24', '', '192.168.0.7'), undefined);
    assert.equal(record('not-an-address', '02:42:0a:00:01:05', '192.168.0.7'), undefined);
  });
});
