import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restartDelayMs, startsWithDaemon } from './restart-policy.js';

const base = { exitCode: 1, stoppedByUser: false, restartCount: 0, ranForMs: 50, previousDelayMs: 0 };

test('no policy, or a user stop, never restarts', () => {
  assert.equal(restartDelayMs({ ...base, policy: undefined }), undefined);
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'no' } }), undefined);
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'always' }, stoppedByUser: true }), undefined);
});

test('always and unless-stopped restart on any exit, starting at 100 ms and doubling to a minute', () => {
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'always' }, exitCode: 0 }), 100);
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'unless-stopped' }, previousDelayMs: 100 }), 200);
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'always' }, previousDelayMs: 51_200 }), 60_000);
});

test('a run of 10 s resets the delay', () => {
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'always' }, previousDelayMs: 6400, ranForMs: 10_000 }), 100);
});

test('on-failure restarts only non-zero exits, up to MaximumRetryCount', () => {
  const policy = { Name: 'on-failure' as const, MaximumRetryCount: 2 };
  assert.equal(restartDelayMs({ ...base, policy, exitCode: 0 }), undefined);
  assert.equal(restartDelayMs({ ...base, policy, restartCount: 1 }), 100);
  assert.equal(restartDelayMs({ ...base, policy, restartCount: 2 }), undefined);
  assert.equal(restartDelayMs({ ...base, policy: { Name: 'on-failure' }, restartCount: 50 }), 100);
});

test('the daemon starts always containers, and unless-stopped ones not stopped by a user', () => {
  assert.equal(startsWithDaemon({ Name: 'always' }, false), true);
  assert.equal(startsWithDaemon({ Name: 'unless-stopped' }, true), false);
  assert.equal(startsWithDaemon({ Name: 'unless-stopped' }, false), true);
  assert.equal(startsWithDaemon({ Name: 'always' }, true), true);
  assert.equal(startsWithDaemon({ Name: 'on-failure' }, false), false);
});
