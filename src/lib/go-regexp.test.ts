import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGoRegexp } from './go-regexp.js';

/** The message compileGoRegexp fails with. */
function failure(pattern: string): string {
  try {
    compileGoRegexp(pattern);
  } catch (err) {
    return (err as Error).message;
  }
  return 'compiled';
}

describe("Go's regexp errors for the log options' patterns", () => {
  it('compiles what both syntaxes share', () => {
    assert.ok(compileGoRegexp('^com\\.example\\.').test('com.example.foo'));
    assert.ok(compileGoRegexp('^(FOO|BAR)_[0-9]+$').test('BAR_12'));
  });

  it("words the failures both see as the reference's dockerd does", () => {
    // the reference's answers to --log-opt env-regex=<pattern> at start
    assert.equal(failure('('), 'error parsing regexp: missing closing ): `(`');
    assert.equal(failure('a(b'), 'error parsing regexp: missing closing ): `a(b`');
    assert.equal(failure(')'), 'error parsing regexp: unexpected ): `)`');
    assert.equal(failure('[a'), 'error parsing regexp: missing closing ]: `[a`');
    assert.equal(failure('x[a\\]'), 'error parsing regexp: missing closing ]: `[a\\]`');
    assert.equal(failure('a\\'), 'error parsing regexp: trailing backslash at end of expression: ``');
  });

  it("keeps JavaScript's reason, in Go's form, for the others", () => {
    assert.equal(failure('*'), 'error parsing regexp: nothing to repeat: `*`');
  });
});
