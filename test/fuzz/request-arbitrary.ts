// One fuzzed request for an operation of the spec: a version prefix (good, old, unknown, malformed),
// path parameters (the harness's objects, missing ones, hostile strings), query parameters from
// their types and enums (or hostile values, or unknown names), headers, and a body generated from
// the operation's schema and then mutated (edits to its JSON, then its bytes: cut short, not JSON,
// deeply nested, invalid UTF-8, empty).
import fc from 'fast-check';
import { tarOf } from '../helpers/image-archives.js';
import { applyEdits, editArbitrary, hostileString, INVALID_UTF8_BYTES, INVALID_UTF8_MARK } from './hostile.js';
import { safeQuery, withoutHostAccess } from './safety.js';
import { KNOWN_NAMES, schemaArbitrary } from './schema-arbitrary.js';
import { resolve, type Operation, type Parameter, type Spec } from './spec.js';

export interface FuzzRequest {
  operationId: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** what was done to the body, for the report */
  bodyKind: string;
}

export const VERSION_PREFIXES = ['', '/v1.41', '/v1.40', '/v1.25', '/v1.30'];
export const BAD_VERSION_PREFIXES = ['/v1.42', '/v1.24', '/v0.0', '/v99999999999999999999.1', '/v1.41.1', '/v1.', '/v.41', '/v-1.30', '/v1.4a', '/V1.41', '/v%EF%BC%91.%EF%BC%94%EF%BC%91', '/v1.041'];

/** Percent-encodes every byte but the unreserved ones; the invalid-UTF-8 mark becomes its bytes. */
export function percent(s: string): string {
  const parts = s.split(INVALID_UTF8_MARK).map((p) => Buffer.from(p, 'utf8'));
  const bytes = Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [INVALID_UTF8_BYTES, p])));
  let out = '';
  for (const b of bytes) out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`;
  return out;
}

/** JSON with the invalid-UTF-8 mark turned into its bytes. */
export function encodeJson(value: unknown): Buffer {
  const text = JSON.stringify(value) ?? '';
  const mark = JSON.stringify(INVALID_UTF8_MARK).slice(1, -1);
  const parts = text.split(mark).map((p) => Buffer.from(p, 'utf8'));
  return Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [INVALID_UTF8_BYTES, p])));
}

export interface Known {
  /** an exec instance of the harness's running container */
  execId: string;
  /** build contexts (buildContexts()) */
  tars: Buffer[];
}

function pathValue(p: Parameter, known: Known): fc.Arbitrary<string> {
  const names = p.name === 'id' ? [...KNOWN_NAMES, known.execId] : KNOWN_NAMES;
  return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.constant('fuzz-missing') }, { weight: 2, arbitrary: hostileString });
}

const filtersJson = fc
  .dictionary(fc.constantFrom('label', 'name', 'id', 'status', 'dangling', 'before', 'since', 'reference', 'type', 'driver', 'until', 'exited', 'health', 'x'), fc.array(fc.constantFrom('true', 'fuzz-c', 'a=b', 'running', '1h', 'busybox', ''), { maxLength: 2 }), { maxKeys: 3 })
  .chain((d) => fc.constantFrom(JSON.stringify(d), JSON.stringify(Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Object.fromEntries(v.map((x) => [x, true]))])))));

function queryValue(p: Parameter, spec: Spec): fc.Arbitrary<readonly string[]> {
  const s = resolve({ ...p, required: undefined }, spec.definitions);
  let good: fc.Arbitrary<readonly string[]>;
  if (p.name === 'filters') good = filtersJson.map((v) => [v]);
  else if (s.enum !== undefined) good = fc.constantFrom(...s.enum.map((e) => [String(e)]));
  else if (s.type === 'boolean') good = fc.constantFrom(['1'], ['0'], ['true'], ['false'], ['']);
  else if (s.type === 'integer' || s.type === 'number') good = schemaArbitrary(s, spec.definitions).map((v) => [String(v)]);
  else if (s.type === 'array') good = fc.array(schemaArbitrary(s.items ?? { type: 'string' }, spec.definitions).map(String), { maxLength: 3 });
  else good = schemaArbitrary({ type: 'string', format: s.format }, spec.definitions).map((v) => [String(v)]);
  return fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: hostileString.map((v) => [v]) }, { weight: 1, arbitrary: fc.constantFrom(['-1'], ['99999999999999999999'], ['1e3'], ['{'], ['yes'], [' 1'], ['0x10'], ['1', '0']) });
}

const authHeader = fc.oneof(
  fc.record({ username: fc.string({ maxLength: 8 }), password: fc.string({ maxLength: 8 }), serveraddress: fc.constantFrom('127.0.0.1:9', 'localhost', '') }, { requiredKeys: [] }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
  fc.constantFrom('!!!', 'e30', Buffer.from('[[[[[[').toString('base64'), Buffer.from('null').toString('base64'), 'a'.repeat(10_000)),
);

const headerSafe = (s: string): string => s.replace(/[^\x20-\x7e]/g, '');

const DOCKERFILES = ['FROM busybox\nRUN true\n', 'FROM busybox\nCOPY . /x\n', 'FROM scratch\n', 'FROM\n', 'RUN\n', 'FROM busybox\nENV a=${b:?\n', '\u0000\ufffd'];

/** Small build contexts, each a Dockerfile alone (made once, before the run: tarOf is asynchronous). */
export function buildContexts(): Promise<Buffer[]> {
  return Promise.all(DOCKERFILES.map((content) => tarOf([{ name: 'Dockerfile', content }])));
}

/** A body in bytes for a binary (tar) or text parameter. */
const binaryBody = (tars: Buffer[]): fc.Arbitrary<{ body: Buffer; kind: string }> => {
  const dockerfileTar = fc.constantFrom(...tars);
  return fc.oneof(
  fc.uint8Array({ maxLength: 2048 }).map((b) => ({ body: Buffer.from(b), kind: 'random bytes' })),
  fc.constant({ body: Buffer.alloc(0), kind: 'empty' }),
  dockerfileTar.map((t) => ({ body: t, kind: 'tar' })),
  fc.tuple(dockerfileTar, fc.nat()).map(([t, n]) => ({ body: t.subarray(0, n % t.length), kind: 'tar cut short' })),
  fc.uint8Array({ maxLength: 512 }).map((b) => ({ body: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from(b)]), kind: 'gzip magic, garbage' })),
  );
};

/** A JSON body from the schema, edited, then perhaps spoilt as bytes. */
function jsonBody(p: Parameter, spec: Spec): fc.Arbitrary<{ body: Buffer; kind: string }> {
  const value = fc.tuple(schemaArbitrary(p.schema ?? {}, spec.definitions), fc.array(editArbitrary, { maxLength: 3 })).map(([v, edits]) => ({
    value: withoutHostAccess(applyEdits(v, edits)),
    kind: edits.length === 0 ? 'schema' : `schema+${edits.map((e) => e.kind).join('+')}`,
  }));
  return fc.oneof(
    { weight: 8, arbitrary: value.map(({ value: v, kind }) => ({ body: encodeJson(v), kind })) },
    { weight: 1, arbitrary: fc.tuple(value, fc.nat()).map(([{ value: v }, n]) => { const b = encodeJson(v); return { body: b.subarray(0, n % Math.max(b.length, 1)), kind: 'json cut short' }; }) },
    { weight: 1, arbitrary: fc.constantFrom('[', '{"a":').map((open) => ({ body: Buffer.from(open.repeat(100_000)), kind: 'deep nesting' })) },
    { weight: 1, arbitrary: fc.constantFrom('', 'null', '[]', '"x"', '1e999', '{}{}', '{"Image":"busybox",}', '\ufeff{}').map((t) => ({ body: Buffer.from(t), kind: `literal ${JSON.stringify(t)}` })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => ({ body: Buffer.from(b), kind: 'random bytes' })) },
  );
}

/** Fuzzed requests for one operation. */
export function requestArbitrary(op: Operation, spec: Spec, known: Known): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters;
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');
  const bodyParam = params.find((p) => p.in === 'body');
  const bodySchema = bodyParam?.schema === undefined ? undefined : resolve(bodyParam.schema, spec.definitions);
  const binary = bodySchema?.type === 'string';

  const prefix = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...VERSION_PREFIXES) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_VERSION_PREFIXES) });
  const pathArb = fc.tuple(...pathParams.map((p) => pathValue(p, known)));
  const queryArb = fc.tuple(...queryParams.map((p) => fc.option(queryValue(p, spec), { nil: undefined, freq: 2 })));
  const extraQuery = fc.array(fc.tuple(fc.string({ maxLength: 6 }), hostileString), { maxLength: 1 });
  const headerArb = fc.tuple(
    ...headerParams.map((p) => fc.option(p.name === 'X-Registry-Auth' ? authHeader : p.enum !== undefined ? fc.constantFrom(...p.enum.map(String)) : fc.string({ maxLength: 20 }), { nil: undefined })),
  );
  const contentType = fc.option(fc.constantFrom(...op.consumes, 'application/json', 'application/json; charset=utf-16', 'text/plain', 'application/x-tar', 'multipart/form-data; boundary=x', ''), { nil: undefined, freq: 4 });
  const body: fc.Arbitrary<{ body: Buffer; kind: string } | undefined> =
    bodyParam === undefined
      ? fc.option(fc.constantFrom('{}', '{"HostConfig":{}}', 'x').map((t) => ({ body: Buffer.from(t), kind: 'unexpected body' })), { nil: undefined, freq: 8 })
      : fc.option(binary ? binaryBody(known.tars) : jsonBody(bodyParam, spec), { nil: undefined, freq: bodyParam.required === true ? 10 : 3 });

  return fc.record({ prefix, pathValues: pathArb, queryValues: queryArb, extraQuery, headerValues: headerArb, contentType, body }).map((r) => {
    let path = op.path;
    pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, percent(r.pathValues[i]))));
    const query: string[] = [];
    queryParams.forEach((p, i) => {
      for (const v of r.queryValues[i] ?? []) {
        const value = safeQuery(p.name, v);
        if (value !== undefined) query.push(`${percent(p.name)}=${percent(value)}`);
      }
    });
    for (const [k, v] of r.extraQuery) if (safeQuery(k, v) !== undefined) query.push(`${percent(k)}=${percent(v)}`);
    const headers: Record<string, string> = {};
    headerParams.forEach((p, i) => {
      const v = r.headerValues[i];
      if (v !== undefined) headers[p.name] = headerSafe(v);
    });
    if (r.body !== undefined) headers['Content-Type'] = r.contentType ?? (binary ? (op.consumes[0] ?? 'application/x-tar') : 'application/json');
    return {
      operationId: op.operationId,
      method: op.method,
      path: `${r.prefix}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`,
      headers,
      body: r.body?.body,
      bodyKind: r.body?.kind ?? 'none',
    };
  });
}
