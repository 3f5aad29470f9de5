import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { FilterArgs } from './filters.js';

const parse = (value: unknown) => FilterArgs.fromJson(JSON.stringify(value));

function assertInvalidFilters(text: string): void {
  assert.throws(
    () => FilterArgs.fromJson(text),
    (err: unknown) => {
      assert.ok(err instanceof EngineError, String(err));
      assert.equal(err.kind, 'invalidParameter');
      assert.match(err.message, /^invalid filters: /);
      return true;
    },
  );
}

describe('FilterArgs.fromJson', () => {
  it('is empty for an absent, empty or null parameter', () => {
    for (const text of [null, '', 'null']) {
      const f = FilterArgs.fromJson(text);
      assert.equal(f.size, 0, String(text));
      assert.equal(f.has('type'), false);
      assert.deepEqual(f.values('type'), []);
    }
    assert.equal(parse({}).size, 0);
  });

  it('reads the map form {"key":{"value":true}}', () => {
    const f = parse({ type: { container: true, image: true }, label: { 'a=b': true } });
    assert.equal(f.size, 2);
    assert.equal(f.has('type'), true);
    assert.equal(f.has('event'), false);
    assert.deepEqual(f.values('type').sort(), ['container', 'image']);
    assert.deepEqual(f.values('label'), ['a=b']);
  });

  it('reads the legacy list form {"key":["value"]}', () => {
    const f = parse({ type: ['container', 'image'], label: ['a=b'] });
    assert.equal(f.size, 2);
    assert.deepEqual(f.values('type').sort(), ['container', 'image']);
    assert.deepEqual(f.values('label'), ['a=b']);
  });

  it('gives the same answers for both forms', () => {
    const map = parse({ type: { container: true }, event: { start: true, die: true } });
    const list = parse({ type: ['container'], event: ['start', 'die'] });
    for (const f of [map, list]) {
      assert.equal(f.exactMatch('type', 'container'), true);
      assert.equal(f.exactMatch('type', 'image'), false);
      assert.equal(f.exactMatch('event', 'die'), true);
      assert.equal(f.fuzzyMatch('event', 'start: x'), true);
    }
    assert.deepEqual(map.values('event').sort(), list.values('event').sort());
  });

  it('accepts both forms side by side in one object', () => {
    const f = parse({ type: ['container'], event: { start: true } });
    assert.deepEqual(f.values('type'), ['container']);
    assert.deepEqual(f.values('event'), ['start']);
  });

  it('lists a value marked false, as Go\'s Args.Get, but never matches it exactly', () => {
    const f = parse({ type: { container: true, image: false } });
    assert.deepEqual(f.values('type'), ['container', 'image']);
    assert.equal(f.exactMatch('type', 'container'), true);
    assert.equal(f.exactMatch('type', 'image'), false);
  });

  it('collapses repeated values of the list form', () => {
    assert.deepEqual(parse({ type: ['container', 'container'] }).values('type'), ['container']);
  });

  it('keeps keys it does not know (the caller ignores them)', () => {
    const f = parse({ nosuchkey: ['x'] });
    assert.equal(f.has('nosuchkey'), true);
    assert.equal(f.exactMatch('type', 'container'), true);
  });

  it('refuses text that is not JSON', () => {
    for (const text of ['nope', '{', '{"type":', "{'type':['x']}", '{"type":["x"]} trailing']) assertInvalidFilters(text);
  });

  it('keeps the JSON parser\'s error as the cause', () => {
    try {
      FilterArgs.fromJson('{');
      assert.fail('did not throw');
    } catch (err) {
      assert.ok(err instanceof EngineError);
      assert.ok(err.cause instanceof SyntaxError);
    }
  });

  it('refuses JSON that is not an object', () => {
    for (const text of ['[]', '["type"]', '"type"', '1', 'true']) assertInvalidFilters(text);
  });

  it('refuses a value that is neither a list of strings nor an object of booleans, naming the key', () => {
    // (null inside a list or map is left out: Go reads it as a zero value, so dockerd takes it)
    for (const value of ['daemon', 1, true, [1], ['a', 2], [['a']], { a: 'yes' }, { a: 1 }, { a: true, b: 'x' }]) {
      assertInvalidFilters(JSON.stringify({ type: value }));
    }
    assert.throws(() => parse({ event: ['x'], type: 'daemon' }), /"type"/);
  });

  it('takes a null value as no filter on that key, as dockerd does (GET /events?filters={"type":null} is 200 there)', () => {
    const f = FilterArgs.fromJson('{"type":null}');
    assert.equal(f.exactMatch('type', 'container'), true);
  });
});

describe('FilterArgs.exactMatch', () => {
  it('matches anything when the key is absent', () => {
    assert.equal(FilterArgs.empty().exactMatch('type', 'container'), true);
    assert.equal(parse({ event: ['start'] }).exactMatch('type', 'anything'), true);
    assert.equal(FilterArgs.empty().exactMatch('type', ''), true);
  });

  it('matches only a value equal to the source', () => {
    const f = parse({ type: ['container', 'image'] });
    assert.equal(f.exactMatch('type', 'container'), true);
    assert.equal(f.exactMatch('type', 'image'), true);
    assert.equal(f.exactMatch('type', 'cont'), false);
    assert.equal(f.exactMatch('type', 'containers'), false);
    assert.equal(f.exactMatch('type', 'Container'), false);
    assert.equal(f.exactMatch('type', ''), false);
  });

  it('matches anything when the key has no values, as dockerd (len(fieldValues) == 0)', () => {
    for (const f of [parse({ type: [] }), parse({ type: {} })]) {
      assert.equal(f.exactMatch('type', 'container'), true);
    }
  });
});

describe('FilterArgs.fuzzyMatch', () => {
  it('matches anything when the key is absent', () => {
    assert.equal(FilterArgs.empty().fuzzyMatch('container', 'abc'), true);
  });

  it('matches a value equal to the source or a prefix of it', () => {
    const f = parse({ container: ['4f2a', 'web'] });
    assert.equal(f.fuzzyMatch('container', '4f2a'), true);
    assert.equal(f.fuzzyMatch('container', '4f2a9c0d11'), true);
    assert.equal(f.fuzzyMatch('container', 'web'), true);
    assert.equal(f.fuzzyMatch('container', 'web-1'), true);
  });

  it('does not match a source shorter than the value, or one the value is only inside of', () => {
    const f = parse({ container: ['4f2a'] });
    assert.equal(f.fuzzyMatch('container', '4f2'), false);
    assert.equal(f.fuzzyMatch('container', 'x4f2a'), false);
    assert.equal(f.fuzzyMatch('container', ''), false);
    assert.equal(f.fuzzyMatch('container', '4F2A'), false);
  });

  it('matches any source with an empty value', () => {
    assert.equal(parse({ container: [''] }).fuzzyMatch('container', 'abc'), true);
  });

  it('matches anything when the key has no values, as dockerd', () => {
    assert.equal(parse({ container: [] }).fuzzyMatch('container', 'abc'), true);
  });
});

describe('FilterArgs.matchKeyValues', () => {
  const attrs = { name: 'web', 'com.example.tier': 'front', empty: '', eq: 'a=b' };

  it('matches anything when the key is absent, even without attributes', () => {
    assert.equal(FilterArgs.empty().matchKeyValues('label', attrs), true);
    assert.equal(FilterArgs.empty().matchKeyValues('label', {}), true);
  });

  it('never matches empty attributes when the key is given', () => {
    assert.equal(parse({ label: ['name'] }).matchKeyValues('label', {}), false);
  });

  it('matches "k" by the presence of the attribute, whatever its value', () => {
    assert.equal(parse({ label: ['name'] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['empty'] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['missing'] }).matchKeyValues('label', attrs), false);
    assert.equal(parse({ label: ['nam'] }).matchKeyValues('label', attrs), false);
  });

  it('matches "k=v" by the exact value', () => {
    assert.equal(parse({ label: ['name=web'] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['name=we'] }).matchKeyValues('label', attrs), false);
    assert.equal(parse({ label: ['name=web1'] }).matchKeyValues('label', attrs), false);
    assert.equal(parse({ label: ['com.example.tier=front'] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['missing=web'] }).matchKeyValues('label', attrs), false);
  });

  it('matches "k=" only an empty value', () => {
    assert.equal(parse({ label: ['empty='] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['name='] }).matchKeyValues('label', attrs), false);
  });

  it('splits at the first "=" only', () => {
    assert.equal(parse({ label: ['eq=a=b'] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['eq=a'] }).matchKeyValues('label', attrs), false);
  });

  it('needs every value of the key to match', () => {
    assert.equal(parse({ label: ['name=web', 'com.example.tier'] }).matchKeyValues('label', attrs), true);
    assert.equal(parse({ label: ['name=web', 'com.example.tier=back'] }).matchKeyValues('label', attrs), false);
    assert.equal(parse({ label: ['name=web', 'name=db'] }).matchKeyValues('label', attrs), false);
  });

  it('does not take inherited properties for attributes', () => {
    assert.equal(parse({ label: ['constructor'] }).matchKeyValues('label', attrs), false);
    assert.equal(parse({ label: ['toString'] }).matchKeyValues('label', attrs), false);
  });

  it('matches anything when the key has no values, as dockerd (MatchKVList: len(fieldValues) == 0)', () => {
    assert.equal(parse({ label: [] }).matchKeyValues('label', {}), true);
  });
});
