import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MTU_OPTION, overlayMtu } from './overlay-mtu.js';

describe('overlayMtu', () => {
  it('is 1450 by default and for 0, else the option', () => {
    assert.equal(overlayMtu({}), 1450);
    assert.equal(overlayMtu({ [MTU_OPTION]: '0' }), 1450);
    assert.equal(overlayMtu({ [MTU_OPTION]: '1400' }), 1400);
  });

  it('refuses what libnetwork refuses, in its words', () => {
    assert.throws(() => overlayMtu({ [MTU_OPTION]: 'big' }), { kind: 'invalidParameter', message: 'failed to parse big: strconv.Atoi: parsing "big": invalid syntax' });
    assert.throws(() => overlayMtu({ [MTU_OPTION]: '-1' }), { message: 'invalid MTU value: -1' });
  });
});
