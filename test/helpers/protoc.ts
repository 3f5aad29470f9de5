// protoc (Debian's protobuf-compiler, which the setup installs) as the independent oracle for
// berth's protobuf codecs: --encode turns text format into protoc's own bytes, --decode reads
// bytes back into text. The text format of a record is written here, not by the library under test.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EndpointRecordInit } from '../../src/swarm/endpoint-record.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const includes = ['-I', 'proto', '-I', 'test/fixtures/proto'];
const files = ['libnetwork/agent.proto', 'endpoint_record_batch.proto'];

export const RECORD = 'libnetwork.EndpointRecord';
export const BATCH = 'berth.test.EndpointRecordBatch';

export interface ProtocResult {
  ok: boolean;
  stdout: Buffer;
  stderr: string;
}

export function protoc(mode: 'encode' | 'decode', type: string, input: Uint8Array | string): ProtocResult {
  const r = spawnSync('protoc', [`--${mode}=${type}`, ...includes, ...files], { cwd: root, input, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** protoc's bytes for a message given as text format; fails the test when protoc refuses it. */
export function protocEncode(type: string, text: string): Uint8Array {
  const r = protoc('encode', type, text);
  if (!r.ok) throw new Error(`protoc --encode refused:\n${text}\n${r.stderr}`);
  return new Uint8Array(r.stdout);
}

/** protoc's reading of `bytes` as text format; fails the test when protoc cannot parse them. */
export function protocDecode(type: string, bytes: Uint8Array): string {
  const r = protoc('decode', type, bytes);
  if (!r.ok) throw new Error(`protoc --decode refused the bytes ${Buffer.from(bytes).toString('hex')}: ${r.stderr}`);
  return r.stdout.toString();
}

/** The text format of a record, fields in the order given, strings as octal-escaped UTF-8 bytes. */
export function recordText(record: EndpointRecordInit): string {
  const lines: string[] = [];
  const field = (name: string, value: string | number | boolean | undefined) => {
    if (value !== undefined) lines.push(`${name}: ${typeof value === 'string' ? quote(value) : String(value)}`);
  };
  for (const [key, value] of Object.entries(record)) {
    switch (key) {
      case 'ingressPorts':
        for (const port of value as NonNullable<EndpointRecordInit['ingressPorts']>) {
          const inner = Object.entries(port)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => `${snake(k)}: ${typeof v === 'string' ? quote(v) : String(v)}`);
          lines.push(`ingress_ports { ${inner.join(' ')} }`);
        }
        break;
      case 'aliases':
      case 'taskAliases':
        for (const alias of value as string[]) field(snake(key), alias);
        break;
      default:
        field(snake(key), value as string | boolean);
    }
  }
  return lines.join('\n') + '\n';
}

export function batchText(records: readonly EndpointRecordInit[]): string {
  return records.map((r) => `records {\n${recordText(r)}}\n`).join('');
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function quote(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    out += byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return out + '"';
}
