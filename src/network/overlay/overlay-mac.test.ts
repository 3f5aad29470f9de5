import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { macFromIp } from './overlay-mac.js';

describe('macFromIp', () => {
  it('is 02:42 and the address bytes, as libnetwork derives it', () => {
    assert.equal(macFromIp('10.0.1.2'), '02:42:0a:00:01:02');
    assert.equal(macFromIp('172.17.255.254'), '02:42:ac:11:ff:fe');
  });

  it('refuses what is not an IPv4 address', () => {
    assert.throws(() => macFromIp('fd00::1'), /not an IPv4 address/);
    assert.throws(() => macFromIp('10.0.1.2/24'), /not an IPv4 address/);
  });
});
