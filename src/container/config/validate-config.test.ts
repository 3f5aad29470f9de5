import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSignal } from './stop-signal.js';
import type { ContainerConfig } from './types.js';
import { validateContainerConfig } from './validate-config.js';
import { validateHealthcheck } from './validate-healthcheck.js';

const bad = (message: string) => ({ kind: 'invalidParameter', message });

describe('validateContainerConfig', () => {
  it('cleans the working directory as dockerd stores it', () => {
    const c: ContainerConfig = { WorkingDir: '/a/./b//c/../d/' };
    validateContainerConfig(c, { healthcheckMinimum: true });
    assert.equal(c.WorkingDir, '/a/b/d');
  });
  it('refuses a relative working directory', () => {
    assert.throws(() => validateContainerConfig({ WorkingDir: 'rel/dir' }, { healthcheckMinimum: true }), bad("the working directory 'rel/dir' is invalid, it needs to be an absolute path"));
  });
  it('refuses an empty variable or one without a name', () => {
    assert.throws(() => validateContainerConfig({ Env: ['=foo'] }, { healthcheckMinimum: true }), bad('invalid environment variable: =foo'));
    assert.throws(() => validateContainerConfig({ Env: [''] }, { healthcheckMinimum: true }), bad('invalid environment variable: '));
    validateContainerConfig({ Env: ['A=1', 'B'] }, { healthcheckMinimum: true });
  });
  it('refuses an unknown stop signal', () => {
    assert.throws(() => validateContainerConfig({ StopSignal: 'SIGBOGUS' }, { healthcheckMinimum: true }), bad('Invalid signal: SIGBOGUS'));
  });
});

describe('parseSignal', () => {
  it('reads names in any case, with or without SIG, and numbers', () => {
    assert.equal(parseSignal('kill'), 9);
    assert.equal(parseSignal('SIGTERM'), 15);
    assert.equal(parseSignal('rtmin+3'), 37);
    assert.equal(parseSignal('9'), 9);
  });
  it('refuses 0', () => assert.throws(() => parseSignal('0'), bad('Invalid signal: 0')));
});

describe('validateHealthcheck', () => {
  for (const field of ['Interval', 'Timeout', 'StartPeriod'] as const) {
    it(`refuses a ${field} under 1ms, allows 0 and 1ms`, () => {
      assert.throws(() => validateHealthcheck({ [field]: 5 }, true), bad(`${field} in Healthcheck cannot be less than 1ms`));
      validateHealthcheck({ [field]: 0 }, true);
      validateHealthcheck({ [field]: 1_000_000 }, true);
    });
  }
  it('refuses negative retries', () => {
    assert.throws(() => validateHealthcheck({ Retries: -1 }, true), bad('Retries in Healthcheck cannot be negative'));
  });
});
