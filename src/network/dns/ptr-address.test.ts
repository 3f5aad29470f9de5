import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ptrAddress } from './ptr-address.js';

describe('PTR question names', () => {
  it('reads an IPv4 address backwards from in-addr.arpa', () => {
    assert.equal(ptrAddress('2.0.18.172.in-addr.arpa'), '172.18.0.2');
  });

  it('reads 32 nibbles from ip6.arpa into the short form', () => {
    const nibbles = '3.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.2.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f';
    assert.equal(ptrAddress(`${nibbles}.ip6.arpa`), 'fd00:0:0:2::3');
  });

  it('names no address for a partial zone, a bad octet or another name', () => {
    for (const name of ['0.18.172.in-addr.arpa', '256.0.18.172.in-addr.arpa', '01.0.18.172.in-addr.arpa', 'a.0.18.172.in-addr.arpa', '1.2.ip6.arpa', 'in-addr.arpa', 'web']) {
      assert.equal(ptrAddress(name), undefined, name);
    }
  });
});
