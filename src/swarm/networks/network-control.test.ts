// The checks a swarm network's create passes before anything is allocated.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeNetworkCreate } from '../../network/create-request.js';
import { checkNetworkRequest } from './network-control.js';

describe('checkNetworkRequest', () => {
  it('takes a plain overlay network', () => {
    checkNetworkRequest(decodeNetworkCreate({ Name: 'ov', Driver: 'overlay', Options: { 'com.docker.network.driver.mtu': '1400' } }));
  });

  it('refuses an encrypted overlay network, whatever the option\'s value: berth has no IPsec (501)', () => {
    for (const value of ['', 'true', 'false']) {
      assert.throws(() => checkNetworkRequest(decodeNetworkCreate({ Name: 'ov', Driver: 'overlay', Options: { encrypted: value } })), {
        kind: 'notImplemented',
        message: 'encrypted overlay networks are not supported by berth',
      });
    }
  });

  it('checks the name in swarmkit\'s words before the driver\'s options', () => {
    assert.throws(() => checkNetworkRequest(decodeNetworkCreate({ Name: '-ov', Driver: 'overlay', Options: { encrypted: '' } })), {
      kind: 'invalidParameter',
      message: 'rpc error: code = InvalidArgument desc = name must be valid as a DNS name component',
    });
  });
});
