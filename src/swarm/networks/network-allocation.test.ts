import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../../errors.js';
import { IpNet } from '../../network/ip-net.js';
import { allocatePools, allocateVxlanId, checkIpamEntries } from './network-allocation.js';
import { networkView, type SwarmNetworkRecord } from './network-records.js';

const net = (text: string) => IpNet.parse(text)!;
const defaults = { defaultAddrPool: null, subnetSize: 24 };
const entry = (subnet: string, more: { ipRange?: string; gateway?: string } = {}) => ({ subnet, ipRange: more.ipRange ?? '', gateway: more.gateway ?? '' });

function failure(fn: () => unknown): [string, string] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError);
    return [err.kind, err.message];
  }
  assert.fail('no error');
}

describe('swarm network allocation', () => {
  it('takes the lowest free /24 of 10.0.0.0/8 after the ingress network\'s, with its first address as gateway', () => {
    assert.deepEqual(allocatePools([], [], defaults), [{ subnet: '10.0.1.0/24', gateway: '10.0.1.1' }]);
    assert.deepEqual(allocatePools([], [net('10.0.1.0/24'), net('10.0.2.0/24')], defaults), [{ subnet: '10.0.3.0/24', gateway: '10.0.3.1' }]);
    // whatever their size, the subnets held are stepped over
    assert.deepEqual(allocatePools([], [net('10.0.2.0/24'), net('10.0.0.0/23')], defaults), [{ subnet: '10.0.3.0/24', gateway: '10.0.3.1' }]);
  });

  it('follows the swarm\'s DefaultAddrPool and SubnetSize', () => {
    const pool = { defaultAddrPool: ['10.20.0.0/16', '10.30.0.0/16'], subnetSize: 26 };
    assert.deepEqual(allocatePools([], [], pool), [{ subnet: '10.20.0.64/26', gateway: '10.20.0.65' }]);
    assert.deepEqual(allocatePools([], [net('10.20.0.0/16')], pool), [{ subnet: '10.30.0.0/26', gateway: '10.30.0.1' }]);
  });

  it('keeps the subnets asked for, canonical, with their gateway and range, and refuses an overlap', () => {
    assert.deepEqual(allocatePools([entry('10.50.0.5/16', { ipRange: '10.50.1.0/24', gateway: '10.50.0.254' }), entry('fd00:1::/64')], [], defaults), [
      { subnet: '10.50.0.0/16', gateway: '10.50.0.254', ipRange: '10.50.1.0/24' },
      { subnet: 'fd00:1::/64', gateway: 'fd00:1::1' },
    ]);
    assert.deepEqual(failure(() => allocatePools([entry('10.0.1.128/25')], [net('10.0.1.0/24')], defaults)), ['forbidden', 'Pool overlaps with other one on this address space']);
    assert.deepEqual(failure(() => allocatePools([entry('10.9.0.0/16'), entry('10.9.1.0/24')], [], defaults)), ['forbidden', 'Pool overlaps with other one on this address space']);
  });

  it('checks the entries in swarmkit\'s words', () => {
    const rpc = (m: string) => ['invalidParameter', `rpc error: code = InvalidArgument desc = ${m}`];
    assert.deepEqual(failure(() => checkIpamEntries([entry('10.1.0.0')])), rpc('ipam configuration: invalid subnet 10.1.0.0'));
    assert.deepEqual(failure(() => checkIpamEntries([entry('10.1.0.0/16', { ipRange: 'x' })])), rpc('ipam configuration: invalid range x'));
    assert.deepEqual(failure(() => checkIpamEntries([entry('10.1.0.0/16', { ipRange: '10.2.0.0/24' })])), rpc('ipam configuration: subnet 10.1.0.0/16 does not contain range 10.2.0.0/24'));
    assert.deepEqual(failure(() => checkIpamEntries([entry('10.1.0.0/16', { gateway: '10.1.0' })])), rpc('ipam configuration: invalid gateway 10.1.0'));
    assert.deepEqual(failure(() => checkIpamEntries([entry('10.1.0.0/16', { gateway: '10.2.0.1' })])), rpc('ipam configuration: subnet 10.1.0.0/16 does not contain gateway 10.2.0.1'));
    checkIpamEntries([entry('10.1.0.0/16', { ipRange: '10.1.2.0/24', gateway: '10.1.0.1' })]);
  });

  it('hands out the lowest free VXLAN ID after the ingress network\'s 4096', () => {
    assert.equal(allocateVxlanId([]), 4097);
    assert.equal(allocateVxlanId([4097, 4099]), 4098);
  });

  it('gives the ingress network the first default subnet and VXLAN ID 4096, which no other network takes', () => {
    assert.deepEqual(allocatePools([], [], defaults, true), [{ subnet: '10.0.0.0/24', gateway: '10.0.0.1' }]);
    assert.deepEqual(allocatePools([], [], defaults, false), [{ subnet: '10.0.1.0/24', gateway: '10.0.1.1' }]);
    // made again once removed, while other networks hold the next subnets
    assert.deepEqual(allocatePools([], [net('10.0.1.0/24')], defaults, true), [{ subnet: '10.0.0.0/24', gateway: '10.0.0.1' }]);
    assert.equal(allocateVxlanId([], true), 4096);
    assert.equal(allocateVxlanId([4097], true), 4096);
    assert.equal(allocateVxlanId([], false), 4097);
  });
});

describe('a swarm network as dockerd shows it', () => {
  const record: SwarmNetworkRecord = {
    id: 'iu02gp1z1ecyoakji4uopih4w',
    createdAt: '2026-11-26T11:22:22.351866013Z',
    updatedAt: '2026-11-26T11:22:22.351866013Z',
    spec: { name: 'st_default', labels: {}, options: {}, internal: false, attachable: false, enableIPv6: false, ipam: { options: {}, entries: [] } },
    pools: [{ subnet: '10.0.1.0/24', gateway: '10.0.1.1' }],
    vxlanId: 4097,
  };

  it('has no labels or IPAM options when it was given none, and its VXLAN ID among its options', () => {
    const shown = networkView(record);
    assert.deepEqual([shown.scope, shown.driver, shown.labels, shown.ipam.options, shown.options], ['swarm', 'overlay', null, null, { 'com.docker.network.driver.overlay.vxlanid_list': '4097' }]);
    assert.deepEqual(shown.ipam.config, [{ subnet: '10.0.1.0/24', gateway: '10.0.1.1', requested: { subnet: '10.0.1.0/24', gateway: '10.0.1.1' } }]);
  });

  it('shows IPAM options given with the allocator\'s serial option, as dockerd does', () => {
    const shown = networkView({ ...record, spec: { ...record.spec, labels: { a: 'b' }, ipam: { options: { x: 'y' }, entries: [] } } });
    assert.deepEqual([shown.labels, shown.ipam.options], [{ a: 'b' }, { 'com.docker.network.ipam.serial': 'true', x: 'y' }]);
  });
});
