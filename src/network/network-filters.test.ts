import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { FilterArgs } from '../lib/filters.js';
import { pruneSelection, selectNetworks, type NetworkUse } from './network-filters.js';
import type { NetworkDriver, NetworkRecord } from './network-record.js';

function use(name: string, opts: { id?: string; driver?: NetworkDriver; labels?: Record<string, string>; created?: string; endpoints?: number } = {}): NetworkUse {
  const network: NetworkRecord = {
    id: (opts.id ?? name.padEnd(8, '0')).padEnd(64, '0'),
    name,
    driver: opts.driver ?? 'bridge',
    scope: 'local',
    created: opts.created ?? '2026-01-01T00:00:00.123456789Z',
    internal: false,
    attachable: false,
    enableIPv6: false,
    ipam: { driver: 'default', options: null, config: [] },
    options: {},
    labels: opts.labels ?? {},
  };
  return { network, endpointCount: opts.endpoints ?? 0 };
}

const bridge = use('bridge', { id: 'a5c997f6' });
const host = use('host', { id: '96680dce', driver: 'host' });
const none = use('none', { id: 'e6909865', driver: 'null' });
const web = use('web-front', { id: 'c0ffee01', labels: { tier: 'web', 'com.x': '1' }, endpoints: 2 });
const db = use('db-back', { id: 'c0ffee02', driver: 'macvlan', labels: { tier: 'db', empty: '' } });
const all = [bridge, host, none, web, db];

const filters = (json: unknown) => FilterArgs.fromJson(JSON.stringify(json));
const names = (list: NetworkUse[]) => list.map((u) => u.network.name);
const select = (json: unknown) => names(selectNetworks(all, filters(json)));

function failure(fn: () => unknown): { kind: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return { kind: err.kind, message: err.message };
  }
  assert.fail('no error');
}

describe('selectNetworks', () => {
  it('keeps every network without filters', () => {
    assert.deepEqual(select({}), ['bridge', 'host', 'none', 'web-front', 'db-back']);
  });

  it('matches name and id as regular expressions found anywhere, as Go filters.Args.Match', () => {
    assert.deepEqual(select({ name: ['front'] }), ['web-front']);
    assert.deepEqual(select({ name: ['^b'] }), ['bridge']);
    assert.deepEqual(select({ name: ['k$', 'ne'] }), ['none', 'db-back']);
    assert.deepEqual(select({ name: ['[bad'] }), [], 'a pattern that does not compile matches nothing');
    assert.deepEqual(select({ name: ['WEB'] }), []);
    assert.deepEqual(select({ id: ['c997'] }), ['bridge'], 'not only a prefix');
    assert.deepEqual(select({ id: ['c0ffee'] }), ['web-front', 'db-back']);
    assert.deepEqual(select({ name: { 'web-front': false } }), ['web-front'], 'a value mapped to false still matches as a pattern');
  });

  it('matches driver and scope exactly, labels as key or key=value', () => {
    assert.deepEqual(select({ driver: ['null'] }), ['none']);
    assert.deepEqual(select({ driver: ['nul'] }), []);
    assert.deepEqual(select({ scope: ['local'] }), names(all));
    assert.deepEqual(select({ scope: ['swarm'] }), []);
    assert.deepEqual(select({ label: ['tier'] }), ['web-front', 'db-back']);
    assert.deepEqual(select({ label: ['tier=db'] }), ['db-back']);
    assert.deepEqual(select({ label: ['empty='] }), ['db-back']);
    assert.deepEqual(select({ label: ['tier=web', 'com.x=1'] }), ['web-front']);
  });

  it('keeps by type builtin or custom, each value in turn', () => {
    assert.deepEqual(select({ type: ['custom'] }), ['web-front', 'db-back']);
    assert.deepEqual(select({ type: ['builtin'] }), ['bridge', 'host', 'none']);
    assert.deepEqual(select({ type: ['custom', 'builtin'] }), ['web-front', 'db-back', 'bridge', 'host', 'none']);
    assert.deepEqual(failure(() => select({ type: ['foo'] })), { kind: 'system', message: "invalid filter: 'type'='foo'" });
  });

  it('keeps dangling networks as the spec says: custom ones without endpoints', () => {
    assert.deepEqual(select({ dangling: ['true'] }), ['db-back']);
    assert.deepEqual(select({ dangling: ['1'] }), ['db-back']);
    assert.deepEqual(select({ dangling: ['false'] }), ['bridge', 'host', 'none', 'web-front']);
    assert.deepEqual(failure(() => select({ dangling: ['x'] })), {
      kind: 'invalidParameter',
      message: 'invalid value for filter \'dangling\', must be "true" (or "1"), or "false" (or "0")',
    });
    assert.deepEqual(failure(() => select({ dangling: ['true', 'false'] })), {
      kind: 'invalidParameter',
      message: 'got more than one value for filter key "dangling"',
    });
  });

  it('refuses other keys', () => {
    assert.equal(failure(() => select({ foo: ['x'] })).kind, 'invalidParameter');
  });
});

describe('pruneSelection', () => {
  const prunable = (json: unknown, list = all) => names(list.filter(pruneSelection(filters(json))));

  it('never takes a predefined network or one with endpoints', () => {
    assert.deepEqual(prunable({}), ['db-back']);
  });

  it('takes label, and spares a network only when it matches every label! term', () => {
    const a = use('a', { labels: { keep: '1' } });
    const b = use('b', { labels: { keep: '2' } });
    const c = use('c');
    const list = [a, b, c];
    assert.deepEqual(prunable({ 'label!': ['keep=1'] }, list), ['b', 'c']);
    assert.deepEqual(prunable({ 'label!': ['keep'] }, list), ['c']);
    assert.deepEqual(prunable({ 'label!': ['keep=1', 'keep=2'] }, list), ['a', 'b', 'c']);
    assert.deepEqual(prunable({ label: ['keep'] }, list), ['a', 'b']);
  });

  it('takes until as a duration, an RFC 3339 time or a timestamp', () => {
    const old = use('old', { created: '2020-01-01T00:00:00.5Z' });
    const recent = use('recent', { created: new Date().toISOString() });
    assert.deepEqual(prunable({ until: ['10m'] }, [old, recent]), ['old']);
    assert.deepEqual(prunable({ until: ['2021-01-01T00:00:00Z'] }, [old, recent]), ['old']);
    assert.deepEqual(prunable({ until: ['1577836800.5'] }, [old, recent]), ['old'], 'created at the instant itself');
    assert.deepEqual(prunable({ until: ['1577836800'] }, [old, recent]), []);
  });

  it('refuses two until values and keys it does not know, in dockerd\'s words', () => {
    assert.deepEqual(failure(() => pruneSelection(filters({ until: ['1h', '2h'] }))), { kind: 'system', message: 'more than one until filter specified' });
    assert.equal(failure(() => pruneSelection(filters({ dangling: ['true'] }))).kind, 'invalidParameter');
  });
});
