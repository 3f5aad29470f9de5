import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffPeerEntries, peerEntries } from './overlay-peers.js';

const B = { endpointIp: '10.0.1.3', endpointMac: '02:42:0A:00:01:03', tunnelEndpointIp: '10.215.0.2' };
const C = { endpointIp: '10.0.1.4', endpointMac: '02:42:0a:00:01:04', tunnelEndpointIp: '10.215.0.3' };
const LOCAL = { endpointIp: '10.0.1.2', endpointMac: '02:42:0a:00:01:02', tunnelEndpointIp: '10.215.0.1' };

describe('peerEntries', () => {
  it('gives each remote peer a forwarding and a neighbour entry, lower-case, and none to local ones', () => {
    assert.deepEqual(peerEntries([LOCAL, B], '10.215.0.1'), {
      fdb: [{ mac: '02:42:0a:00:01:03', dst: '10.215.0.2' }],
      neighbours: [{ ip: '10.0.1.3', mac: '02:42:0a:00:01:03' }],
    });
  });
});

describe('diffPeerEntries', () => {
  const wanted = peerEntries([B, C], '10.215.0.1');

  it('puts everything into an empty table, and nothing once it is there', () => {
    assert.deepEqual(diffPeerEntries({ fdb: [], neighbours: [] }, wanted), { put: wanted, remove: { fdb: [], neighbours: [] } });
    assert.deepEqual(diffPeerEntries(wanted, wanted), { put: { fdb: [], neighbours: [] }, remove: { fdb: [], neighbours: [] } });
  });

  it('removes a peer that is gone', () => {
    const onlyB = peerEntries([B], '10.215.0.1');
    assert.deepEqual(diffPeerEntries(wanted, onlyB), {
      put: { fdb: [], neighbours: [] },
      remove: { fdb: [{ mac: '02:42:0a:00:01:04', dst: '10.215.0.3' }], neighbours: [{ ip: '10.0.1.4', mac: '02:42:0a:00:01:04' }] },
    });
  });

  it('replaces, without removing first, an endpoint that moved to another node or MAC', () => {
    const moved = peerEntries([{ ...B, tunnelEndpointIp: '10.215.0.3' }, { ...C, endpointMac: '02:42:0a:00:01:99' }], '10.215.0.1');
    assert.deepEqual(diffPeerEntries(wanted, moved), {
      put: {
        fdb: [{ mac: '02:42:0a:00:01:03', dst: '10.215.0.3' }, { mac: '02:42:0a:00:01:99', dst: '10.215.0.3' }],
        neighbours: [{ ip: '10.0.1.4', mac: '02:42:0a:00:01:99' }],
      },
      remove: { fdb: [{ mac: '02:42:0a:00:01:04', dst: '10.215.0.3' }], neighbours: [] },
    });
  });
});
