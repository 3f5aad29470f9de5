// The swarm EndpointRecord, byte for byte as Docker's engine gossips it: encoding and decoding of
// the protobuf message (generated from proto/libnetwork/agent.proto by protoc-gen-es), and its
// proto3 JSON form. Part of berth's public library (src/library.ts).
import { create, fromBinary, fromJson, isMessage, toBinary, toJson, type JsonValue, type MessageInitShape } from '@bufbuild/protobuf';
import { EndpointRecordSchema, type EndpointRecord, type EndpointRecordJson } from '../generated/libnetwork/agent_pb.js';
import { InvalidEndpointRecordError } from './endpoint-record-error.js';
import { checkWire } from './wire-check.js';

/**
 * The largest record berth reads or writes. A real one is a few hundred bytes (names, two IPs,
 * some ports and aliases); the limit keeps a record that claims gigabytes from being buffered.
 */
export const MAX_ENDPOINT_RECORD_BYTES = 64 * 1024;

/** A record as built by hand: every field optional, ports as plain objects. */
export type EndpointRecordInit = MessageInitShape<typeof EndpointRecordSchema>;

export interface CodecOptions {
  /** Overrides MAX_ENDPOINT_RECORD_BYTES. */
  maxBytes?: number;
}

/**
 * Canonical proto3 bytes: fields in number order, default values left out, then any unknown
 * fields the record was decoded with, as they came.
 */
export function encodeEndpointRecord(record: EndpointRecordInit | EndpointRecord, options: CodecOptions = {}): Uint8Array {
  const message = asMessage(record);
  checkStrings(message);
  let bytes: Uint8Array;
  try {
    bytes = toBinary(EndpointRecordSchema, message);
  } catch (err) {
    throw new InvalidEndpointRecordError(`cannot encode the endpoint record: ${(err as Error).message}`);
  }
  const max = options.maxBytes ?? MAX_ENDPOINT_RECORD_BYTES;
  if (bytes.length > max) throw new InvalidEndpointRecordError(`the endpoint record encodes to ${bytes.length} bytes, more than the limit of ${max}`);
  return bytes;
}

/**
 * Reads a record from its bytes, in whatever field order they come. Unknown fields are kept (in
 * `$unknown`) so that encoding the record again gives them back. Anything malformed, or larger
 * than the limit, is an InvalidEndpointRecordError that says what and where.
 */
export function decodeEndpointRecord(bytes: Uint8Array, options: CodecOptions = {}): EndpointRecord {
  const max = options.maxBytes ?? MAX_ENDPOINT_RECORD_BYTES;
  if (bytes.length > max) throw new InvalidEndpointRecordError(`the endpoint record is ${bytes.length} bytes, more than the limit of ${max}`);
  checkWire(bytes, EndpointRecordSchema);
  return fromBinary(EndpointRecordSchema, bytes, { readUnknownFields: true });
}

/** The proto3 JSON form: lowerCamelCase names, protocols by name, default values left out. */
export function endpointRecordToJson(record: EndpointRecordInit | EndpointRecord): EndpointRecordJson {
  return toJson(EndpointRecordSchema, asMessage(record));
}

/** Reads the proto3 JSON form; as proto3 JSON parsers must, it also takes the fields' proto names. */
export function endpointRecordFromJson(json: unknown): EndpointRecord {
  try {
    return fromJson(EndpointRecordSchema, json as JsonValue);
  } catch (err) {
    throw new InvalidEndpointRecordError((err as Error).message);
  }
}

function asMessage(record: EndpointRecordInit | EndpointRecord): EndpointRecord {
  return isMessage(record, EndpointRecordSchema) ? record : create(EndpointRecordSchema, record);
}

/** A lone surrogate has no UTF-8 form; TextEncoder would quietly write U+FFFD in its place. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkStrings(record: EndpointRecord): void {
  const field = fieldWithLoneSurrogate(record);
  if (field !== undefined) {
    throw new InvalidEndpointRecordError(`cannot encode the endpoint record: ${field} holds a lone UTF-16 surrogate, which has no UTF-8 form`);
  }
}

function fieldWithLoneSurrogate(record: EndpointRecord): string | undefined {
  const singles: [string, string][] = [
    ['name', record.name],
    ['service_name', record.serviceName],
    ['service_id', record.serviceId],
    ['virtual_ip', record.virtualIp],
    ['endpoint_ip', record.endpointIp],
  ];
  for (const [field, value] of singles) if (LONE_SURROGATE.test(value)) return field;
  for (const [list, values] of [['aliases', record.aliases], ['task_aliases', record.taskAliases]] as const) {
    const i = values.findIndex((v) => LONE_SURROGATE.test(v));
    if (i >= 0) return `${list}[${i}]`;
  }
  const port = record.ingressPorts.findIndex((p) => LONE_SURROGATE.test(p.name));
  return port >= 0 ? `ingress_ports[${port}].name` : undefined;
}
