// The strict reading of protobuf bytes that a gossip peer may send: it walks every tag of a
// message as Docker's own (gogo-generated) decoder does, before protobuf-es decodes it. protobuf-es
// alone would take a known field in the wrong wire type as garbage, give no clear reason for
// truncation, and skip unknown varints of any length; here each of those is an error naming the
// field and the offset. Every varint is read by protobuf-es's reader; this only checks sizes.
import { isUtf8 } from 'node:buffer';
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { InvalidEndpointRecordError } from './endpoint-record-error.js';

/** A varint is at most 10 bytes (64 bits, 7 per byte); the 10th may carry only the top bit. */
const MAX_VARINT_BYTES = 10;
/** A 32-bit value (a tag or a length) takes at most 5 bytes, the 5th holding 4 bits. */
const MAX_VARINT32_BYTES = 5;
/** How deep unknown groups may nest; a peer has no reason to send any. */
const MAX_GROUP_DEPTH = 16;

const WIRE_TYPE_NAMES = ['varint', '64-bit', 'length-delimited', 'start group', 'end group', '32-bit', '6', '7'];

/** How one known field is checked; worked out once per message type. */
interface FieldRule {
  label: string;
  wireType: WireType;
  /** What a length-delimited field holds: this message, or else a UTF-8 string. */
  message?: DescMessage;
}

/** The bounds of the message being walked, and what to say when something crosses its end. */
interface Scope {
  end: number;
  cutShort: string;
}

/** Throws InvalidEndpointRecordError unless `bytes` is a well-formed `desc` message. */
export function checkWire(bytes: Uint8Array, desc: DescMessage): void {
  const reader = new BinaryReader(bytes);
  checkMessage(reader, bytes, { end: bytes.length, cutShort: 'the input is truncated' }, desc);
}

function checkMessage(reader: BinaryReader, bytes: Uint8Array, scope: Scope, desc: DescMessage): void {
  const rules = rulesOf(desc);
  while (reader.pos < scope.end) {
    const at = reader.pos;
    const [fieldNo, wireType] = readTag(reader, bytes, scope, desc.typeName);
    const rule = rules.get(fieldNo);
    if (rule === undefined) {
      skipUnknown(reader, bytes, scope, at, `${desc.typeName}: unknown field ${fieldNo}`, fieldNo, wireType, 0);
      continue;
    }
    if (wireType !== rule.wireType) {
      throw new InvalidEndpointRecordError(
        `${rule.label} has wire type ${wireType} (${WIRE_TYPE_NAMES[wireType]}), but its type needs ${rule.wireType} (${WIRE_TYPE_NAMES[rule.wireType]})`,
        at,
      );
    }
    if (wireType === WireType.Varint) {
      readVarint(reader, bytes, scope, rule.label);
      continue;
    }
    const start = readLength(reader, bytes, scope, rule.label);
    if (rule.message === undefined) {
      if (!isUtf8Range(bytes, start, reader.pos)) throw new InvalidEndpointRecordError(`${rule.label} is not valid UTF-8`, start);
    } else {
      const end = reader.pos;
      reader.pos = start;
      checkMessage(reader, bytes, { end, cutShort: `${rule.label} is cut short` }, rule.message);
    }
  }
}

const rulesByType = new WeakMap<DescMessage, Map<number, FieldRule>>();

function rulesOf(desc: DescMessage): Map<number, FieldRule> {
  let rules = rulesByType.get(desc);
  if (rules === undefined) {
    rules = new Map(desc.fields.map((f) => [f.number, ruleOf(desc, f)]));
    rulesByType.set(desc, rules);
  }
  return rules;
}

/** These schemas hold strings, bools, uint32s, enums and messages, and lists of strings and of messages. */
function ruleOf(desc: DescMessage, field: DescField): FieldRule {
  const label = `${desc.typeName}.${field.name} (field ${field.number})`;
  if (field.fieldKind === 'message' || (field.fieldKind === 'list' && field.listKind === 'message')) {
    return { label, wireType: WireType.LengthDelimited, message: field.message };
  }
  if (field.fieldKind === 'enum') return { label, wireType: WireType.Varint };
  if (field.fieldKind === 'scalar' || (field.fieldKind === 'list' && field.listKind === 'scalar')) {
    if (field.scalar === ScalarType.STRING) return { label, wireType: WireType.LengthDelimited };
    if (field.fieldKind === 'scalar' && (field.scalar === ScalarType.BOOL || field.scalar === ScalarType.UINT32)) return { label, wireType: WireType.Varint };
  }
  throw new Error(`wire-check: ${label} has a type it does not know`);
}

function readTag(reader: BinaryReader, bytes: Uint8Array, scope: Scope, where: string): [number, WireType] {
  const at = reader.pos;
  const tag = readVarint32(reader, bytes, scope, `${where}: a tag`);
  const fieldNo = tag >>> 3;
  const wireType = tag & 7;
  if (fieldNo === 0) throw new InvalidEndpointRecordError(`${where}: a tag has field number 0, which is never valid`, at);
  if (wireType > WireType.Bit32) throw new InvalidEndpointRecordError(`${where}: field ${fieldNo} has wire type ${wireType}, which does not exist`, at);
  return [fieldNo, wireType as WireType];
}

/** Reads a length prefix and steps over what it covers; returns where the covered bytes start. */
function readLength(reader: BinaryReader, bytes: Uint8Array, scope: Scope, label: string): number {
  const at = reader.pos;
  const length = readVarint32(reader, bytes, scope, `${label}: its length`);
  const remaining = scope.end - reader.pos;
  if (length > remaining) throw new InvalidEndpointRecordError(`${label} claims ${length} bytes, but only ${remaining} remain: ${scope.cutShort}`, at);
  const start = reader.pos;
  reader.pos += length;
  return start;
}

/** A tag or a length: a varint that must fit in 32 bits. */
function readVarint32(reader: BinaryReader, bytes: Uint8Array, scope: Scope, what: string): number {
  const at = reader.pos;
  const value = readVarint(reader, bytes, scope, what);
  const size = reader.pos - at;
  if (size > MAX_VARINT32_BYTES || (size === MAX_VARINT32_BYTES && bytes[reader.pos - 1] > 0x0f)) {
    throw new InvalidEndpointRecordError(`${what} does not fit in 32 bits`, at);
  }
  return value;
}

/**
 * Reads one varint with protobuf-es (which stops at 10 bytes), checking it ends inside the
 * message and carries no more than 64 bits. Returns its low 32 bits.
 */
function readVarint(reader: BinaryReader, bytes: Uint8Array, scope: Scope, what: string): number {
  const at = reader.pos;
  let value: number;
  try {
    value = reader.uint32();
  } catch (err) {
    // protobuf-es reports running off the buffer as a RangeError, an 11th byte as an Error
    if (err instanceof RangeError) throw new InvalidEndpointRecordError(`${what}: a varint runs past the end: ${scope.cutShort}`, at);
    throw new InvalidEndpointRecordError(`${what}: over-long varint (more than ${MAX_VARINT_BYTES} bytes)`, at);
  }
  if (reader.pos > scope.end) throw new InvalidEndpointRecordError(`${what}: a varint runs past the end: ${scope.cutShort}`, at);
  if (reader.pos - at === MAX_VARINT_BYTES && bytes[reader.pos - 1] > 0x01) {
    throw new InvalidEndpointRecordError(`${what}: over-long varint (10 bytes holding more than 64 bits)`, at);
  }
  return value;
}

/** Most strings are ASCII: look at the bytes before asking Node to validate UTF-8. */
function isUtf8Range(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    if (bytes[i] > 0x7f) return isUtf8(bytes.subarray(start, end));
  }
  return true;
}

/** Steps over an unknown field (its tag at `at`), checking it as strictly as a known one. protobuf-es keeps its bytes. */
function skipUnknown(reader: BinaryReader, bytes: Uint8Array, scope: Scope, at: number, name: string, fieldNo: number, wireType: WireType, depth: number): void {
  switch (wireType) {
    case WireType.Varint:
      readVarint(reader, bytes, scope, name);
      return;
    case WireType.Bit64:
    case WireType.Bit32: {
      const size = wireType === WireType.Bit64 ? 8 : 4;
      const remaining = scope.end - reader.pos;
      if (remaining < size) throw new InvalidEndpointRecordError(`${name} needs ${size} bytes, but only ${remaining} remain: ${scope.cutShort}`, at);
      reader.pos += size;
      return;
    }
    case WireType.LengthDelimited:
      readLength(reader, bytes, scope, name);
      return;
    case WireType.StartGroup:
      if (depth >= MAX_GROUP_DEPTH) throw new InvalidEndpointRecordError(`${name}: groups nest more than ${MAX_GROUP_DEPTH} deep`, at);
      for (;;) {
        if (reader.pos >= scope.end) throw new InvalidEndpointRecordError(`${name}: its group has no end: ${scope.cutShort}`, at);
        const innerAt = reader.pos;
        const [innerNo, innerType] = readTag(reader, bytes, scope, name);
        if (innerType === WireType.EndGroup) {
          if (innerNo !== fieldNo) throw new InvalidEndpointRecordError(`${name}: its group is ended by the end tag of field ${innerNo}`, innerAt);
          return;
        }
        skipUnknown(reader, bytes, scope, innerAt, `${name}, field ${innerNo} in its group`, innerNo, innerType, depth + 1);
      }
    case WireType.EndGroup:
      throw new InvalidEndpointRecordError(`${name}: ends a group that never started`, at);
  }
}
