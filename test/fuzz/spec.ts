// The spec as the fuzz harness reads it: test/fixtures/api-v1.41-schemas.json, the 1.41 spec's
// operations with their parameters and its definitions (scripts/spec-schemas.mjs makes it).
import { readFileSync } from 'node:fs';

export interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

export interface Parameter extends Omit<Schema, 'required'> {
  name: string;
  required?: boolean;
  in: 'path' | 'query' | 'header' | 'body';
  schema?: Schema;
}

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  consumes: string[];
  parameters: Parameter[];
}

export interface Spec {
  operations: Operation[];
  definitions: Record<string, Schema>;
}

export function loadSpec(): Spec {
  return JSON.parse(readFileSync(new URL('../../../test/fixtures/api-v1.41-schemas.json', import.meta.url), 'utf8')) as Spec;
}

/** The schema a $ref names, or the schema itself. */
export function resolve(schema: Schema, defs: Record<string, Schema>): Schema {
  let s = schema;
  for (let i = 0; s.$ref !== undefined && i < 8; i++) s = defs[s.$ref.replace('#/definitions/', '')] ?? {};
  return s;
}

/** An allOf flattened into one object schema (properties merged), other schemas as they are. */
export function flatten(schema: Schema, defs: Record<string, Schema>): Schema {
  const s = resolve(schema, defs);
  if (s.allOf === undefined) return s;
  const parts = s.allOf.map((p) => flatten(p, defs));
  return { type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})) as Record<string, Schema> };
}
