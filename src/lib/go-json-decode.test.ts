import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { decodeGoJson, type GoStruct } from './go-json-decode.js';

const inner: GoStruct = { struct: 'pkg.Inner', fields: { Count: 'uint32', Ratio: 'float32', Wait: { named: 'time.Duration', of: 'int64' } } };
const outer: GoStruct = {
  struct: 'pkg.Outer',
  fields: { Name: 'string', On: 'bool', Tags: { slice: 'string' }, Labels: { map: 'string' }, Inner: inner, Items: { slice: inner } },
};

function refusal(message: string) {
  return (err: unknown) => err instanceof EngineError && err.kind === 'invalidParameter' && err.message === message;
}

describe('decodeGoJson', () => {
  it('keeps the fields given, by their Go names, and skips unknown keys and nulls', () => {
    assert.deepEqual(decodeGoJson({ name: 'a', ON: true, other: 1, Tags: null, inner: { count: 3 } }, outer), { Name: 'a', On: true, Inner: { Count: 3 } });
  });

  it('prefers the exact name, and a later key wins', () => {
    assert.deepEqual(decodeGoJson({ name: 'a', Name: 'b' }, outer), { Name: 'b' });
  });

  it("reads null elements as their type's zero value", () => {
    assert.deepEqual(decodeGoJson({ Tags: [null, 'x'], Labels: { a: null }, Items: [null] }, outer), { Tags: ['', 'x'], Labels: { a: '' }, Items: [{}] });
  });

  it('reads null as the zero struct', () => {
    assert.deepEqual(decodeGoJson(null, outer), {});
  });

  it('refuses a body of another kind', () => {
    assert.throws(() => decodeGoJson(true, outer), refusal('json: cannot unmarshal bool into Go value of type pkg.Outer'));
  });

  it("names the innermost struct and the field's path", () => {
    assert.throws(() => decodeGoJson({ Inner: { Wait: '5s' } }, outer), refusal('json: cannot unmarshal string into Go struct field Inner.Inner.Wait of type time.Duration'));
    assert.throws(() => decodeGoJson({ Items: [{ Count: 'x' }] }, outer), refusal('json: cannot unmarshal string into Go struct field Inner.Items.Count of type uint32'));
    assert.throws(() => decodeGoJson({ Items: [1] }, outer), refusal('json: cannot unmarshal number into Go struct field Outer.Items of type pkg.Inner'));
    assert.throws(() => decodeGoJson({ Items: {} }, outer), refusal('json: cannot unmarshal object into Go struct field Outer.Items of type []pkg.Inner'));
    assert.throws(() => decodeGoJson({ Labels: [] }, outer), refusal('json: cannot unmarshal array into Go struct field Outer.Labels of type map[string]string'));
  });

  it('quotes a number that does not fit', () => {
    assert.throws(() => decodeGoJson({ Inner: { Count: 4294967296 } }, outer), refusal('json: cannot unmarshal number 4294967296 into Go struct field Inner.Inner.Count of type uint32'));
    assert.throws(() => decodeGoJson({ Inner: { Ratio: 1e39 } }, outer), refusal('json: cannot unmarshal number 1e+39 into Go struct field Inner.Inner.Ratio of type float32'));
    assert.deepEqual(decodeGoJson({ Inner: { Ratio: 0.5, Wait: -1 } }, outer), { Inner: { Ratio: 0.5, Wait: -1 } });
  });

  it('fails on the first error in the order of the body', () => {
    assert.throws(() => decodeGoJson({ On: 1, Name: 1 }, outer), refusal('json: cannot unmarshal number into Go struct field Outer.On of type bool'));
  });
});
