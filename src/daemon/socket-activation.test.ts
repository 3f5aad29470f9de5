import assert from 'node:assert/strict';
import { it } from 'node:test';
import { takeActivatedFds } from './socket-activation.js';

it('takes the fds from 3 on when LISTEN_PID names this process, and removes the variables', () => {
  const env: NodeJS.ProcessEnv = { LISTEN_PID: '42', LISTEN_FDS: '2', LISTEN_FDNAMES: 'a:b', PATH: '/bin' };
  assert.deepEqual(takeActivatedFds(env, 42), [3, 4]);
  assert.deepEqual(env, { PATH: '/bin' });
});

it('takes none when the variables are for another process, missing or malformed', () => {
  assert.deepEqual(takeActivatedFds({ LISTEN_PID: '41', LISTEN_FDS: '1' }, 42), []);
  assert.deepEqual(takeActivatedFds({}, 42), []);
  assert.deepEqual(takeActivatedFds({ LISTEN_PID: '42', LISTEN_FDS: 'x' }, 42), []);
  assert.deepEqual(takeActivatedFds({ LISTEN_PID: '42', LISTEN_FDS: '0' }, 42), []);
});
