import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sandboxName, vethName, vxlanName } from './overlay-layout.js';

const NID = 'f3a9c0d1e2b4a5968778695a4b3c2d1e';

describe('overlay layout', () => {
  it('names the namespace and the VXLAN device as libnetwork does', () => {
    assert.equal(sandboxName(NID), '1-f3a9c0d1e2');
    assert.equal(vxlanName(4097, NID), 'vx-001001-f3a9c');
    assert.equal(vxlanName(0xffffff, NID), 'vx-ffffff-f3a9c');
  });

  it('names a veth end after its address, within IFNAMSIZ', () => {
    assert.equal(vethName('10.0.1.2'), 've-0a000102');
    for (const name of [sandboxName(NID), vxlanName(0xffffff, NID), vethName('255.255.255.255')]) assert.ok(name.length <= 15, name);
  });
});
