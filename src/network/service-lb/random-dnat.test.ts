import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { probabilityText, randomDnatRules } from './random-dnat.js';

describe('randomDnatRules', () => {
  it('gives each of n destinations 1/(n-i) of what reaches rule i, the last the rest', () => {
    assert.deepEqual(randomDnatRules(['10.0.0.2:80', '10.0.0.3:80', '10.0.0.4:80']), [
      '-m statistic --mode random --probability 0.33333333349 -j DNAT --to-destination 10.0.0.2:80',
      '-m statistic --mode random --probability 0.50000000000 -j DNAT --to-destination 10.0.0.3:80',
      '-j DNAT --to-destination 10.0.0.4:80',
    ]);
    assert.deepEqual(randomDnatRules(['10.0.0.2']), ['-j DNAT --to-destination 10.0.0.2']);
    assert.deepEqual(randomDnatRules(['10.0.0.2:80', '10.0.0.3:80'], 'udp'), [
      '-p udp -m statistic --mode random --probability 0.50000000000 -j DNAT --to-destination 10.0.0.2:80',
      '-p udp -j DNAT --to-destination 10.0.0.3:80',
    ]);
  });

  it('spells probabilities as iptables-save prints them back', () => {
    assert.equal(probabilityText(1 / 3), '0.33333333349');
    assert.equal(probabilityText(1 / 100), '0.00999999978');
    assert.equal(probabilityText(1 / 7), '0.14285714272');
  });
});
