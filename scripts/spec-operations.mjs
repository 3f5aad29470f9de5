// The Docker Engine API 1.41 spec's operations (operationId, first tag, method, path) and its tag
// order, as test/fixtures/api-v1.41-operations.json holds them: the repository's tests read that
// file, never the spec, which lives beside the repository (../shared/spec) and may be absent.
// Rewrite the file when the spec changes:
//   node scripts/spec-operations.mjs [path/to/docker-engine-api-v1.41.yaml]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const SPEC_PATH = fileURLToPath(new URL('../../shared/spec/docker-engine-api-v1.41.yaml', import.meta.url));
export const OPERATIONS_PATH = fileURLToPath(new URL('../test/fixtures/api-v1.41-operations.json', import.meta.url));

/** The operations file's text for the spec's text: one operation a line, in the spec's order, for readable diffs. */
export function specOperations(specText) {
  const spec = parse(specText);
  const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) => (op.operationId ? [{ operationId: op.operationId, tag: op.tags?.[0] ?? '', method: method.toUpperCase(), path }] : [])),
  );
  const lines = operations.map((op) => `    ${JSON.stringify(op)}`);
  return `{\n  "tags": ${JSON.stringify(spec.tags.map((t) => t.name))},\n  "operations": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPERATIONS_PATH, specOperations(readFileSync(process.argv[2] ?? SPEC_PATH, 'utf8')));
}
