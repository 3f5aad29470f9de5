// Go's encoding/json puts a JSON key into the struct field of that exact name, else into the one
// whose name it equals without case, and decodes keys in order, so a later key for a field wins.
// Clients count on it: docker-py sends exec create's DetachKeys as "detachKeys". GoFields reads a
// struct's fields that way, with Go's type errors.
import { invalidParameter } from '../errors.js';

/** A decoded JSON body with its keys renamed to the fields Go would decode them into; anything but an object as is. */
export function matchGoFields(body: unknown, fieldNames: readonly string[]): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const byFoldedName = new Map(fieldNames.map((name) => [name.toLowerCase(), name]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = fieldNames.includes(key) ? key : byFoldedName.get(key.toLowerCase());
    out[name ?? key] = value;
  }
  return out;
}

type Raw = Record<string, unknown>;

/** One Go struct's fields in a JSON object; errors name the struct and the field's path from the body's root, as Go does. */
export class GoFields {
  private readonly raw: Raw;

  constructor(
    private readonly goName: string,
    private readonly path: string,
    raw: Raw,
    names: string[],
  ) {
    this.raw = matchGoFields(raw, names) as Raw;
  }

  string(name: string): string {
    const v = this.raw[name];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw this.typeError(name, v, 'string');
    return v;
  }

  bool(name: string): boolean {
    const v = this.raw[name];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw this.typeError(name, v, 'bool');
    return v;
  }

  object(name: string, goType: string): Raw | null {
    const v = this.raw[name];
    if (v === undefined || v === null) return null;
    if (!isJsonObject(v)) throw this.typeError(name, v, goType);
    return v;
  }

  /** A list of structs: a null entry is an empty struct. */
  list(name: string, goType: string): Raw[] {
    const v = this.raw[name];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw this.typeError(name, v, `[]${goType}`);
    return v.map((entry: unknown) => {
      if (entry === null) return {};
      if (!isJsonObject(entry)) throw this.typeError(name, entry, goType);
      return entry;
    });
  }

  stringMap(name: string): Record<string, string> | null {
    const v = this.raw[name];
    if (v === undefined || v === null) return null;
    if (!isJsonObject(v)) throw this.typeError(name, v, 'map[string]string');
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x !== null && typeof x !== 'string') throw this.typeError(name, x, 'string');
      out[k] = x ?? '';
    }
    return out;
  }

  private typeError(name: string, v: unknown, goType: string): Error {
    const field = this.path === '' ? name : `${this.path}.${name}`;
    return invalidParameter(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${this.goName}.${field} of type ${goType}`);
  }
}

export function isJsonObject(v: unknown): v is Raw {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}
