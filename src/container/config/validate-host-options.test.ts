import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HostConfig } from './types.js';
import { mergeLogConfig, validateIsolation, validatePlatformOptions, validateRestartPolicy } from './validate-host-options.js';

const bad = (message: string) => ({ kind: 'invalidParameter', message });

describe('validateRestartPolicy', () => {
  it('accepts the policies that exist', () => {
    for (const Name of ['', 'no', 'always', 'unless-stopped'] as const) validateRestartPolicy({ RestartPolicy: { Name } });
    validateRestartPolicy({ RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } });
    validateRestartPolicy({ RestartPolicy: { Name: '', MaximumRetryCount: 3 } });
    validateRestartPolicy({ RestartPolicy: { Name: 'no' }, AutoRemove: true });
  });
  it('refuses the others in dockerd words', () => {
    const rp = (RestartPolicy: object, AutoRemove = false) => () => validateRestartPolicy({ RestartPolicy, AutoRemove } as HostConfig);
    assert.throws(rp({ Name: 'bogus' }), bad("invalid restart policy 'bogus'"));
    assert.throws(rp({ Name: 'always', MaximumRetryCount: 2 }), bad("maximum retry count cannot be used with restart policy 'always'"));
    assert.throws(rp({ Name: 'no', MaximumRetryCount: 2 }), bad("maximum retry count cannot be used with restart policy 'no'"));
    assert.throws(rp({ Name: 'on-failure', MaximumRetryCount: -1 }), bad('maximum retry count cannot be negative'));
    assert.throws(rp({ Name: 'always' }, true), bad("can't create 'AutoRemove' container with restart policy"));
  });
});

describe('mergeLogConfig', () => {
  it('defaults to json-file with no options', () => {
    assert.deepEqual(mergeLogConfig(undefined), { Type: 'json-file', Config: {} });
    assert.deepEqual(mergeLogConfig({ Type: '' }), { Type: 'json-file', Config: {} });
  });
  it("accepts json-file's options and the generic ones, and anything for none", () => {
    const lc = { Type: 'json-file', Config: { 'max-size': '1m', mode: 'non-blocking', 'max-buffer-size': '4m' } };
    assert.deepEqual(mergeLogConfig(lc), lc);
    mergeLogConfig({ Type: 'none', Config: { x: '1' } });
  });
  it('refuses an unknown driver, option or mode in dockerd words', () => {
    assert.throws(() => mergeLogConfig({ Type: 'bogus' }), bad('error looking up logging plugin bogus: plugin "bogus" not found'));
    assert.throws(() => mergeLogConfig({ Type: 'json-file', Config: { bogus: '1' } }), bad("unknown log opt 'bogus' for json-file log driver"));
    assert.throws(() => mergeLogConfig({ Config: { mode: 'weird' } }), bad('logger: logging mode not supported: weird'));
    assert.throws(() => mergeLogConfig({ Config: { 'max-buffer-size': '1m' } }), bad("logger: max-buffer-size option is only supported with 'mode=non-blocking'"));
  });
});

describe('validateIsolation', () => {
  it('accepts default only, refusing others with the 500 dockerd gives', () => {
    validateIsolation({ Isolation: 'default' });
    validateIsolation({});
    assert.throws(() => validateIsolation({ Isolation: 'hyperv' }), { kind: 'system', message: `Invalid isolation: "hyperv" - linux only supports 'default'` });
  });
});

describe('validatePlatformOptions', () => {
  it('refuses a negative ShmSize, an OOM score out of range and an unknown runtime', () => {
    assert.throws(() => validatePlatformOptions({ ShmSize: -1 }), bad('SHM size can not be less than 0'));
    assert.throws(() => validatePlatformOptions({ OomScoreAdj: 1001 }), bad('Invalid value 1001, range for oom score adj is [-1000, 1000]'));
    assert.throws(() => validatePlatformOptions({ Runtime: 'bogus' }), bad('Unknown runtime specified bogus'));
    validatePlatformOptions({ ShmSize: 0, OomScoreAdj: -1000, Runtime: 'runc' });
  });
});
