// A JSON body read into a Go type as encoding/json reads it, for the bodies whose errors clients
// see verbatim: keys match a field by exact name, else without case; unknown keys and nulls are
// skipped; a value of the wrong kind fails with Go's UnmarshalTypeError, the first one in
// document order. The result keeps the Go field names and only the fields that had a value.
import { invalidParameter } from '../errors.js';
import { jsonKind } from './go-json-fields.js';

export type GoScalar = 'string' | 'bool' | 'int' | 'int64' | 'uint32' | 'uint64' | 'float32';

export type GoType =
  | GoScalar
  /** a defined type (time.Duration, mount.Type): Go names it in errors */
  | { named: string; of: GoScalar }
  | { slice: GoType }
  /** map[string]T */
  | { map: GoType }
  | GoStruct;

export interface GoStruct {
  /** with its package, as Go prints the type: "swarm.TaskSpec" */
  struct: string;
  fields: Record<string, GoType>;
}

export type GoValue = Record<string, unknown>;

/** Decodes `body` into the struct `type`; a body that is not an object fails as Go's Decode does. */
export function decodeGoJson(body: unknown, type: GoStruct): GoValue {
  if (body === null) return {};
  if (!isObject(body)) throw invalidParameter(`json: cannot unmarshal ${jsonKind(body)} into Go value of type ${type.struct}`);
  return decodeStruct(body, type, '');
}

const RANGES: Partial<Record<GoScalar, [number, number]>> = {
  int: [-(2 ** 63), 2 ** 63 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  uint32: [0, 2 ** 32 - 1],
  uint64: [0, 2 ** 64 - 1],
};
const FLOAT32_MAX = 3.4028234663852886e38;

function decodeStruct(raw: GoValue, type: GoStruct, path: string): GoValue {
  const names = Object.keys(type.fields);
  const out: GoValue = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = names.includes(key) ? key : names.find((n) => n.toLowerCase() === key.toLowerCase());
    if (name === undefined || value === null) continue;
    out[name] = decodeValue(value, type.fields[name]!, { owner: shortName(type.struct), path: path === '' ? name : `${path}.${name}` });
  }
  return out;
}

interface Where {
  /** the innermost struct's name, without its package */
  owner: string;
  /** the field's path from the body's root */
  path: string;
}

function decodeValue(v: unknown, type: GoType, at: Where): unknown {
  if (typeof type === 'string') return decodeScalar(v, type, type, at);
  if ('named' in type) return decodeScalar(v, type.of, type.named, at);
  if ('slice' in type) {
    if (!Array.isArray(v)) throw typeError(v, goTypeName(type), at);
    // a null element is the element's zero value (for a pointer element dockerd itself then panics)
    return v.map((e: unknown) => (e === null ? zeroOf(type.slice) : decodeValue(e, type.slice, at)));
  }
  if ('map' in type) {
    if (!isObject(v)) throw typeError(v, goTypeName(type), at);
    const out: GoValue = {};
    for (const [k, e] of Object.entries(v)) out[k] = e === null ? zeroOf(type.map) : decodeValue(e, type.map, at);
    return out;
  }
  if (!isObject(v)) throw typeError(v, type.struct, at);
  return decodeStruct(v, type, at.path);
}

function decodeScalar(v: unknown, scalar: GoScalar, goName: string, at: Where): unknown {
  if (scalar === 'string' || scalar === 'bool') {
    if (typeof v !== (scalar === 'bool' ? 'boolean' : 'string')) throw typeError(v, goName, at);
    return v;
  }
  if (typeof v !== 'number') throw typeError(v, goName, at);
  const range = RANGES[scalar];
  const fits = range === undefined ? Math.abs(v) <= FLOAT32_MAX : Number.isInteger(v) && v >= range[0] && v <= range[1];
  // Go quotes the number's literal; JSON.parse kept only its value (1e3 comes out as 1000)
  if (!fits) throw invalidParameter(`json: cannot unmarshal number ${v} into Go struct field ${at.owner}.${at.path} of type ${goName}`);
  return v;
}

function zeroOf(type: GoType): unknown {
  if (typeof type !== 'string' && !('named' in type)) return 'slice' in type ? [] : {};
  const scalar = typeof type === 'string' ? type : type.of;
  return scalar === 'string' ? '' : scalar === 'bool' ? false : 0;
}

function goTypeName(type: GoType): string {
  if (typeof type === 'string') return type;
  if ('named' in type) return type.named;
  if ('slice' in type) return `[]${goTypeName(type.slice)}`;
  if ('map' in type) return `map[string]${goTypeName(type.map)}`;
  return type.struct;
}

function typeError(v: unknown, goName: string, at: Where): Error {
  return invalidParameter(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${at.owner}.${at.path} of type ${goName}`);
}

function shortName(goName: string): string {
  return goName.slice(goName.lastIndexOf('.') + 1);
}

function isObject(v: unknown): v is GoValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
