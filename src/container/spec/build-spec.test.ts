import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { replaceOrAppendEnv } from '../../lib/env-values.js';
import { daemonEnvironment } from './build-spec.js';

describe('daemonEnvironment', () => {
  it('puts PATH, HOSTNAME and TERM first, replaced in place by Config.Env', () => {
    assert.deepEqual(daemonEnvironment({ Hostname: 'abc', Env: ['PATH=/bin', 'FOO=bar'] }), ['PATH=/bin', 'HOSTNAME=abc', 'FOO=bar']);
    assert.deepEqual(daemonEnvironment({ Hostname: 'abc', Tty: true, Env: null }), [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      'HOSTNAME=abc',
      'TERM=xterm',
    ]);
  });

  it('unsets a default with a bare name, and appends repeated names as dockerd does', () => {
    assert.deepEqual(replaceOrAppendEnv(['PATH=/bin', 'HOSTNAME=x'], ['HOSTNAME', 'A=1', 'A=2', 'B']), ['PATH=/bin', 'A=1', 'A=2']);
  });
});
