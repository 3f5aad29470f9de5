import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BEHAVIOUR_NAMES, negotiateApiVersion, splitVersionPrefix, type BehaviourName } from './api-version.js';
import { EngineError } from '../errors.js';

describe('splitVersionPrefix', () => {
  it('takes a /vX.Y prefix off the path', () => {
    assert.deepEqual(splitVersionPrefix('/v1.40/containers/json'), { version: '1.40', path: '/containers/json' });
  });
  it('leaves a path without a prefix alone', () => {
    assert.deepEqual(splitVersionPrefix('/info'), { version: undefined, path: '/info' });
  });
  it('does not take a prefix that is the whole path or not a version', () => {
    assert.deepEqual(splitVersionPrefix('/v1.41'), { version: undefined, path: '/v1.41' });
    assert.deepEqual(splitVersionPrefix('/vabc/info'), { version: undefined, path: '/vabc/info' });
  });
});

describe('negotiateApiVersion', () => {
  it('serves a request without a prefix at 1.41', () => {
    assert.equal(negotiateApiVersion(undefined).value, '1.41');
  });
  for (const v of ['1.25', '1.30', '1.40', '1.41']) {
    it(`accepts ${v}`, () => assert.equal(negotiateApiVersion(v).value, v));
  }
  it('refuses a version below 1.25 with dockerd wording', () => {
    assert.throws(
      () => negotiateApiVersion('1.24'),
      (err: unknown) =>
        err instanceof EngineError &&
        err.kind === 'invalidParameter' &&
        err.message === 'client version 1.24 is too old. Minimum supported API version is 1.25, please upgrade your client to a newer version',
    );
  });
  it('refuses a version above 1.41 with dockerd wording', () => {
    assert.throws(
      () => negotiateApiVersion('1.42'),
      (err: unknown) =>
        err instanceof EngineError && err.kind === 'invalidParameter' && err.message === 'client version 1.42 is too new. Maximum supported API version is 1.41',
    );
  });
  it('compares field by field, not as decimals', () => {
    assert.throws(() => negotiateApiVersion('1.100'));
    assert.throws(() => negotiateApiVersion('1.3'));
    assert.throws(() => negotiateApiVersion('2'));
  });
});

describe('behaviour table', () => {
  const expected: Record<BehaviourName, Record<'1.25' | '1.40' | '1.41', boolean>> = {
    healthcheckMinimumDuration: { '1.25': false, '1.40': true, '1.41': true },
    envWithoutEqualsRemovesVariable: { '1.25': false, '1.40': true, '1.41': true },
    pidsLimitZeroIsUnlimited: { '1.25': false, '1.40': true, '1.41': true },
    capabilitiesField: { '1.25': false, '1.40': true, '1.41': false },
    cgroupnsMode: { '1.25': false, '1.40': false, '1.41': true },
    defaultIpcModeShareable: { '1.25': true, '1.40': false, '1.41': false },
    kernelMemoryTcpField: { '1.25': false, '1.40': true, '1.41': true },
    bindNonRecursiveOption: { '1.25': false, '1.40': true, '1.41': true },
    attachWebsocketBinaryMessages: { '1.25': false, '1.40': true, '1.41': true },
    statsOneShot: { '1.25': false, '1.40': false, '1.41': true },
    serviceSysctlsAndMaxReplicas: { '1.25': false, '1.40': true, '1.41': true },
    serviceCapabilitiesUlimitsAndJobs: { '1.25': false, '1.40': false, '1.41': true },
    networkListContainers: { '1.25': true, '1.40': false, '1.41': false },
    updatePidsLimit: { '1.25': false, '1.40': true, '1.41': true },
  };
  it('has an expectation for every behaviour', () => {
    assert.deepEqual([...BEHAVIOUR_NAMES].sort(), Object.keys(expected).sort());
  });
  for (const name of BEHAVIOUR_NAMES) {
    for (const v of ['1.25', '1.40', '1.41'] as const) {
      it(`${name} at ${v}`, () => assert.equal(negotiateApiVersion(v).has(name), expected[name][v]));
    }
  }
});
