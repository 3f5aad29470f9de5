// What turns a well-formed value into a hostile one: values of the wrong type, huge and negative
// numbers, deep nesting, control characters, invalid UTF-8, path climbing, long strings; and the
// edits that put them into a value (replace a node, drop a field, add an unknown one).
import fc from 'fast-check';

/**
 * Stands for bytes that are not UTF-8 in a string; the body's encoder (encodeBody) swaps it for
 * them after JSON.stringify, which could not write them.
 */
export const INVALID_UTF8_MARK = '\u0001INVALID-UTF8\u0001';
export const INVALID_UTF8_BYTES = Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80]);

/** A JSON value nested `depth` times: [[[…]]] or {"a":{"a":…}}. */
export function nested(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

export const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    '..',
    '../../../../etc/passwd',
    '/proc/self/environ',
    '%00',
    '\u0000',
    '\r\nX-Injected: 1',
    'a'.repeat(70_000),
    '\u{1F600}\u0301\u202e',
    '\ud800',
    INVALID_UTF8_MARK,
    `x${INVALID_UTF8_MARK}y`,
    '-1',
    'NaN',
    '1e309',
    '{"',
    'tcp://[::1',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }),
);

export const hostileNumber = fc.constantFrom(-1, -2147483649, 2 ** 53, 2 ** 64, 9223372036854775807, -9223372036854775808, 1e308, -1e308, 0.5, -0.0, 1e-320);

/** Anything in a place that wants something else. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '': null }, '') },
  { weight: 1, arbitrary: fc.constantFrom(50, 500, 1000).chain((d) => fc.constantFrom(nested(d, 'array'), nested(d, 'object'))) },
  { weight: 1, arbitrary: fc.array(fc.constant('x'), { minLength: 1000, maxLength: 1000 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export type Edit =
  | { kind: 'replace'; pick: number; value: unknown }
  | { kind: 'drop'; pick: number }
  | { kind: 'extra'; pick: number; key: string; value: unknown };

export const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('extra' as const),
      pick: fc.nat(),
      key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty')),
      value: hostileValue,
    }),
  },
);

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
}

function slots(value: unknown, out: Slot[] = []): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push({ parent: value, key: i });
      slots(v, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push({ parent: value as Record<string, unknown>, key: k });
      slots(v, out);
    }
  }
  return out;
}

function containers(value: unknown, out: Array<Record<string, unknown>> = []): Array<Record<string, unknown>> {
  if (Array.isArray(value)) value.forEach((v) => containers(v, out));
  else if (value !== null && typeof value === 'object') {
    out.push(value as Record<string, unknown>);
    Object.values(value).forEach((v) => containers(v, out));
  }
  return out;
}

/** The value with the edits made, in order (a deep copy; the root itself may be replaced). */
export function applyEdits(value: unknown, edits: readonly Edit[]): unknown {
  let root: unknown = value === undefined ? undefined : structuredClone(value);
  for (const edit of edits) {
    const all = slots(root);
    if (edit.kind === 'extra') {
      const objects = containers(root);
      if (objects.length === 0) continue;
      // defineProperty, so "__proto__" is a field of the JSON and not the object's prototype
      Object.defineProperty(objects[edit.pick % objects.length], edit.key, { value: edit.value, enumerable: true, writable: true, configurable: true });
    } else if (all.length === 0 || edit.pick % (all.length + 1) === all.length) {
      // the root itself
      if (edit.kind === 'replace') root = edit.value;
    } else {
      const { parent, key } = all[edit.pick % (all.length + 1)];
      if (edit.kind === 'replace') (parent as Record<string | number, unknown>)[key] = edit.value;
      else if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
    }
  }
  return root;
}
