// The addresses of a swarm network's pools: never its own, its broadcast or its gateway.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey, nextAddress } from './address-allocation.js';

describe('nextAddress', () => {
  it('gives the lowest address past the gateway that no one holds', () => {
    const pools = [{ subnet: '10.0.1.0/24', gateway: '10.0.1.1' }];
    assert.equal(nextAddress('n1', pools, new Set()), '10.0.1.2/24');
    assert.equal(nextAddress('n1', pools, new Set([addressKey('n1', '10.0.1.2/24')])), '10.0.1.3/24');
    // another network's address is not this one's
    assert.equal(nextAddress('n1', pools, new Set([addressKey('n2', '10.0.1.2/24')])), '10.0.1.2/24');
  });

  it("keeps to the pool's range, and skips a gateway anywhere in it", () => {
    assert.equal(nextAddress('n1', [{ subnet: '10.9.0.0/16', gateway: '10.9.1.128', ipRange: '10.9.1.128/25' }], new Set()), '10.9.1.129/16');
  });

  it('answers none once the pools are full, broadcast left out', () => {
    const pools = [{ subnet: '10.0.2.0/30', gateway: '10.0.2.1' }];
    assert.equal(nextAddress('n1', pools, new Set([addressKey('n1', '10.0.2.2/30')])), undefined);
  });
});
