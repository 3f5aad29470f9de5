import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleChanges } from './hidden-changes.js';

test('the runtime mount targets and the parents only they changed are hidden', () => {
  const changes = [
    { path: '/dev', kind: 1 as const },
    { path: '/etc', kind: 0 as const },
    { path: '/etc/hosts', kind: 1 as const },
    { path: '/proc', kind: 1 as const },
    { path: '/tmp', kind: 0 as const },
    { path: '/tmp/x', kind: 1 as const },
  ];
  assert.deepEqual(visibleChanges(changes), [
    { path: '/tmp', kind: 0 },
    { path: '/tmp/x', kind: 1 },
  ]);
  const withEtc = [...changes, { path: '/etc/added', kind: 1 as const }, { path: '/etc/hostname', kind: 2 as const }];
  assert.deepEqual(
    visibleChanges(withEtc).map((c) => c.path),
    ['/etc', '/tmp', '/tmp/x', '/etc/added', '/etc/hostname'],
  );
});
