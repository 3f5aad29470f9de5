// Values the spec's schemas describe, as fast-check arbitraries: every property optional (so
// missing fields come for free), enums from the spec, integers around their formats' edges, and
// strings drawn partly from the names of the objects the harness made (so requests reach real
// containers, images, volumes and networks, not only 404s).
import fc from 'fast-check';
import { flatten, type Schema } from './spec.js';

/** Names of objects that exist in the daemon under fuzz (made by the harness before the run). */
export const KNOWN_NAMES = ['busybox', 'busybox:latest', 'fuzz-c', 'fuzz-run', 'fuzz-v', 'fuzz-n', 'bridge', 'none', 'fuzz-img:1'];

const INT_EDGES: Record<string, number[]> = {
  int64: [0, -1, 2 ** 53 - 1, -(2 ** 53), 9223372036854775807, -9223372036854775808],
  uint64: [0, 18446744073709551615, 2 ** 53],
  uint32: [0, 4294967295, 4294967296],
  uint16: [0, 65535, 65536],
};

export function intArbitrary(format: string | undefined): fc.Arbitrary<number> {
  const edges = INT_EDGES[format ?? ''] ?? [0, -1, 2147483647, -2147483648];
  return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -10, max: 100000 }) }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
}

export const plainString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('/tmp', '/', 'sh', 'true', '1m', 'tcp', '80/tcp', '127.0.0.1', '10.99.0.0/16', 'label=a', 'local', 'json-file') },
);

export function stringArbitrary(format: string | undefined): fc.Arbitrary<string> {
  if (format === 'date-time') return fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), plainString);
  if (format === 'cidr') return fc.oneof(fc.constantFrom('10.99.0.0/16', '172.30.1.0/24', '0.0.0.0/0', '::/0'), plainString);
  if (format === 'ip-address') return fc.oneof(fc.ipV4(), fc.ipV6(), plainString);
  return plainString;
}

/** A value of the schema, `depth` levels of objects and arrays at most (the spec's schemas recurse). */
export function schemaArbitrary(schema: Schema, defs: Record<string, Schema>, depth = 5): fc.Arbitrary<unknown> {
  const byDepth = cache.get(schema) ?? new Map<number, fc.Arbitrary<unknown>>();
  cache.set(schema, byDepth);
  let arb = byDepth.get(depth);
  if (arb === undefined) {
    arb = build(schema, defs, depth);
    byDepth.set(depth, arb);
  }
  return arb;
}

const cache = new WeakMap<Schema, Map<number, fc.Arbitrary<unknown>>>();

function build(schema: Schema, defs: Record<string, Schema>, depth: number): fc.Arbitrary<unknown> {
  const s = flatten(schema, defs);
  if (s.enum !== undefined && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const type = s.type ?? (s.properties !== undefined ? 'object' : s.items !== undefined ? 'array' : undefined);
  switch (type) {
    case 'string':
      return stringArbitrary(s.format);
    case 'integer':
      return intArbitrary(s.format);
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), intArbitrary(undefined));
    case 'boolean':
      return fc.boolean();
    case 'array':
      if (depth <= 0) return fc.constant([]);
      return fc.array(s.items !== undefined ? schemaArbitrary(s.items, defs, depth - 1) : plainString, { maxLength: 3 });
    case 'object': {
      if (depth <= 0) return fc.constant({});
      const props = Object.entries(s.properties ?? {});
      // a few fields at a time (the required ones always): a body with half of HostConfig's eighty
      // fails on the first bad one and reaches nothing deeper
      const required = props.filter(([k]) => s.required?.includes(k) === true);
      const optional = props.filter(([k]) => s.required?.includes(k) !== true);
      const record = fc
        .shuffledSubarray(optional, { maxLength: Math.min(6, optional.length) })
        .chain((picked) => fc.record(Object.fromEntries([...required, ...picked].map(([k, v]) => [k, schemaArbitrary(v, defs, depth - 1)]))));
      const extra = s.additionalProperties;
      if (props.length === 0 && extra !== undefined && extra !== false) {
        const valueSchema: Schema = extra === true ? { type: 'string' } : extra;
        return fc.dictionary(plainString, schemaArbitrary(valueSchema, defs, depth - 1), { maxKeys: 3 });
      }
      return record;
    }
    default:
      // a schema that says nothing (an "any"): small JSON
      return fc.jsonValue({ maxDepth: 2 });
  }
}
