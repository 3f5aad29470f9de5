// What the API fuzz harness (test/fuzz/) generates requests from: each operation of the Docker
// Engine API 1.41 spec with its parameters (path, query, header, body) and the spec's definitions,
// with the prose left out (descriptions, examples, titles, responses). The harness reads
// test/fixtures/api-v1.41-schemas.json, never the spec, which lives beside the repository
// (../shared/spec) and may be absent. Rewrite the file when the spec changes:
//   node scripts/spec-schemas.mjs [path/to/docker-engine-api-v1.41.yaml]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const SPEC_PATH = fileURLToPath(new URL('../../shared/spec/docker-engine-api-v1.41.yaml', import.meta.url));
export const SCHEMAS_PATH = fileURLToPath(new URL('../test/fixtures/api-v1.41-schemas.json', import.meta.url));

const PROSE = new Set(['description', 'example', 'examples', 'title', 'x-nullable', 'x-go-name', 'summary']);

function strip(value) {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !PROSE.has(k)).map(([k, v]) => [k, strip(v)]));
}

/** The schemas file's text for the spec's text: one operation a line, then one definition a line. */
export function specSchemas(specText) {
  const spec = parse(specText);
  const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      op.operationId ? [{ operationId: op.operationId, method: method.toUpperCase(), path, consumes: op.consumes ?? [], parameters: strip(op.parameters ?? []) }] : [],
    ),
  );
  const definitions = Object.entries(spec.definitions).map(([name, schema]) => `    ${JSON.stringify(name)}: ${JSON.stringify(strip(schema))}`);
  return `{\n  "operations": [\n${operations.map((op) => `    ${JSON.stringify(op)}`).join(',\n')}\n  ],\n  "definitions": {\n${definitions.join(',\n')}\n  }\n}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMAS_PATH, specSchemas(readFileSync(process.argv[2] ?? SPEC_PATH, 'utf8')));
}
