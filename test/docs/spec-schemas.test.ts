// Holds test/fixtures/api-v1.41-schemas.json (what the fuzz harness generates from) to the spec it
// was made from, where that spec is at hand (beside the repository, ../shared/spec); a clone of the
// repository alone skips this.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { it } from 'node:test';

// The compiled test runs from dist/test/docs/; the generator is a plain script of the repository.
const repoRoot = new URL('../../../', import.meta.url);
const generator = (await import(new URL('scripts/spec-schemas.mjs', repoRoot).href)) as {
  SPEC_PATH: string;
  SCHEMAS_PATH: string;
  specSchemas: (specText: string) => string;
};

const noSpec = !existsSync(generator.SPEC_PATH) && `the spec is not beside the repository (${generator.SPEC_PATH})`;

it('the committed schemas file is what scripts/spec-schemas.mjs makes of the 1.41 spec', { skip: noSpec }, () => {
  const committed = readFileSync(generator.SCHEMAS_PATH, 'utf8');
  assert.equal(committed, generator.specSchemas(readFileSync(generator.SPEC_PATH, 'utf8')), 'run node scripts/spec-schemas.mjs');
});
