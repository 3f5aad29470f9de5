import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import { formatIp, IpNet, parseIp, type IpAddress } from './ip-net.js';
import { allocateGateway, DEFAULT_POOLS, Ipam, macFromIpv4, poolOf, requestAddress, reserveAuxAddresses, type HeldPool } from './ipam.js';

const net = (text: string) => IpNet.parse(text) as IpNet;
const ip = (text: string) => parseIp(text) as IpAddress;
const held = (...subnets: string[]): HeldPool[] => subnets.map((s) => ({ subnet: net(s) }));
const noHost = () => [];
const subnetOf = (ipam: Ipam, pools: HeldPool[]) => ipam.requestPool(pools, { family: 4 }).subnet.toString();
const ask = (subnet: string, ipRange?: string) => ({ family: 4 as const, subnet: { net: net(subnet), text: subnet }, ipRange });

/** The error a call throws: its kind and message. */
function failure(fn: () => unknown): { kind: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return { kind: err.kind, message: err.message };
  }
  assert.fail('no error');
}

describe('default pools', () => {
  it("are Docker's 31: 172.17-31 as /16s, then 192.168.0.0/16 as /20s", () => {
    assert.equal(DEFAULT_POOLS.length, 31);
    assert.equal(DEFAULT_POOLS[0].toString(), '172.17.0.0/16');
    assert.equal(DEFAULT_POOLS[14].toString(), '172.31.0.0/16');
    assert.equal(DEFAULT_POOLS[15].toString(), '192.168.0.0/20');
    assert.equal(DEFAULT_POOLS[30].toString(), '192.168.240.0/20');
  });

  it('skip the subnets other networks hold, or overlap', () => {
    const ipam = new Ipam(noHost);
    assert.equal(subnetOf(ipam, held('172.17.0.0/16', '172.18.5.0/24')), '172.19.0.0/16');
  });

  it('are searched from after the last one handed out, as dockerd 20.10 does, wrapping at the end', () => {
    const ipam = new Ipam(noHost);
    const taken = held('172.17.0.0/16');
    const first = subnetOf(ipam, taken);
    assert.equal(first, '172.18.0.0/16');
    // 172.18 is free again (its network went), yet the next search starts after it
    assert.equal(subnetOf(ipam, taken), '172.19.0.0/16');
    const allButTwo = held(...DEFAULT_POOLS.slice(0, 29).map(String));
    assert.equal(subnetOf(ipam, allButTwo), '192.168.224.0/20');
    assert.equal(subnetOf(ipam, allButTwo), '192.168.240.0/20');
    assert.equal(subnetOf(ipam, held('172.17.0.0/16')), '172.18.0.0/16', 'wrapped to the start');
  });

  it("skip what the host's routes and nameservers reach", () => {
    let asked = 0;
    const ipam = new Ipam(() => {
      asked++;
      return [net('172.16.0.0/13'), net('172.24.0.1/32')];
    });
    assert.equal(subnetOf(ipam, []), '172.25.0.0/16');
    assert.equal(asked, 1, 'the host is read once per request');
  });

  it('run out with dockerd\'s 404, and IPv6 has none', () => {
    const ipam = new Ipam(() => [net('172.16.0.0/12'), net('192.168.0.0/16')]);
    assert.deepEqual(failure(() => ipam.requestPool([], { family: 4 })), {
      kind: 'notFound',
      message: 'could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network',
    });
    assert.deepEqual(failure(() => ipam.requestPool([], { family: 6 })), {
      kind: 'notFound',
      message: 'could not find an available, non-overlapping IPv6 address pool among the defaults to assign to the network',
    });
  });
});

describe('a subnet asked for', () => {
  const ipam = new Ipam(() => [net('10.0.0.0/8')]);
  const overlap = { kind: 'forbidden', message: 'Pool overlaps with other one on this address space' };

  it('is not checked against the host', () => {
    assert.equal(ipam.requestPool([], ask('10.1.0.0/16')).subnet.toString(), '10.1.0.0/16');
  });

  it('must not overlap a held subnet, either way round', () => {
    assert.deepEqual(failure(() => ipam.requestPool(held('172.19.0.0/16'), ask('172.19.0.0/16'))), overlap);
    assert.deepEqual(failure(() => ipam.requestPool(held('172.19.0.0/16'), ask('172.19.5.0/24'))), overlap);
    assert.deepEqual(failure(() => ipam.requestPool(held('172.19.0.0/16'), ask('172.16.0.0/12'))), overlap);
  });

  it('with an IP range clashes only with the same subnet and range, as a sub-pool of libnetwork', () => {
    const pools = [{ subnet: net('10.10.0.0/16'), ipRange: '10.10.1.0/24' }];
    assert.ok(ipam.requestPool(pools, ask('10.10.0.0/16', '10.10.2.0/24')));
    assert.ok(ipam.requestPool(held('172.19.0.0/16'), ask('172.19.0.0/16', '172.19.1.0/24')));
    assert.deepEqual(failure(() => ipam.requestPool(pools, ask('10.10.0.0/16', '10.10.1.0/24'))), overlap);
    assert.deepEqual(failure(() => ipam.requestPool(pools, ask('10.10.0.0/16'))), overlap);
  });

  it('with a range that does not parse fails in libnetwork\'s words', () => {
    assert.deepEqual(failure(() => ipam.requestPool([], ask('10.20.0.0/16', 'bad'))), {
      kind: 'system',
      message: 'failed to parse pool request for address space "LocalDefault" pool "10.20.0.0/16" subpool "bad": Invalid Address SubPool',
    });
  });
});

describe('addresses', () => {
  const pool = poolOf(net('10.50.0.0/24'), net('10.50.0.128/25'));

  it('are the lowest free of the range, never the subnet\'s own or its broadcast', () => {
    assert.equal(formatIp(requestAddress(pool, new Set())), '10.50.0.128');
    assert.equal(formatIp(requestAddress(poolOf(net('10.50.0.0/24')), new Set())), '10.50.0.1');
    const used = new Set([ip('10.50.0.128').value, ip('10.50.0.129').value, ip('10.50.0.131').value]);
    assert.equal(formatIp(requestAddress(pool, used)), '10.50.0.130');
    assert.equal(formatIp(requestAddress(poolOf(net('fd00:9::/64')), new Set([ip('fd00:9::1').value]))), 'fd00:9::2');
  });

  it('asked for may lie outside the range but not outside the subnet, and must be free', () => {
    assert.equal(formatIp(requestAddress(pool, new Set(), ip('10.50.0.5'))), '10.50.0.5');
    assert.deepEqual(failure(() => requestAddress(pool, new Set(), ip('10.51.0.5'))), { kind: 'system', message: 'Requested address is out of range' });
    for (const taken of ['10.50.0.0', '10.50.0.255']) {
      assert.deepEqual(failure(() => requestAddress(pool, new Set(), ip(taken))), { kind: 'forbidden', message: 'Address already in use' });
    }
  });

  it('run out', () => {
    const tiny = poolOf(net('10.60.0.0/30'));
    assert.deepEqual(failure(() => requestAddress(tiny, new Set([ip('10.60.0.1').value, ip('10.60.0.2').value]))), {
      kind: 'system',
      message: 'No available addresses on this pool',
    });
  });

  it('of a range written outside its subnet come from the range\'s bits below the subnet\'s mask, as dockerd takes them', () => {
    assert.equal(formatIp(requestAddress(poolOf(net('10.20.0.0/16'), net('10.21.0.0/24')), new Set())), '10.20.0.1');
  });
});

describe('gateway and auxiliary addresses', () => {
  const pool = poolOf(net('10.45.0.0/16'), net('10.45.1.0/24'));

  it('the gateway is the first free address of the range (10.45.1.0 here, as dockerd gives it)', () => {
    assert.equal(formatIp(allocateGateway(pool, new Set(), undefined, '')), '10.45.1.0');
  });

  it('a gateway asked for fails in dockerd\'s words', () => {
    assert.deepEqual(failure(() => allocateGateway(pool, new Set(), ip('10.21.0.1'), '10.21.0.1')), {
      kind: 'system',
      message: 'failed to allocate gateway (10.21.0.1): Requested address is out of range',
    });
    assert.deepEqual(failure(() => allocateGateway(pool, new Set(), ip('10.45.0.0'), '10.45.0.0')), {
      kind: 'system',
      message: 'failed to allocate gateway (10.45.0.0): Address already in use',
    });
  });

  it('auxiliary addresses are reserved, in or out of the range, and checked in dockerd\'s words', () => {
    assert.deepEqual(reserveAuxAddresses(pool, new Set(), { a: '10.45.1.1', b: '10.45.3.3' }, 'n').map(formatIp), ['10.45.1.1', '10.45.3.3']);
    assert.deepEqual(failure(() => reserveAuxAddresses(pool, new Set(), { a: 'bad' }, 'net1')), {
      kind: 'system',
      message: 'non parsable secondary ip address (a:bad) passed for network net1',
    });
    assert.deepEqual(failure(() => reserveAuxAddresses(pool, new Set(), { a: '10.21.0.1' }, 'n')), {
      kind: 'forbidden',
      message: 'auxiliary address: (a:10.21.0.1) must belong to the master pool: 10.45.0.0/16',
    });
    assert.deepEqual(failure(() => reserveAuxAddresses(pool, new Set([ip('10.45.1.0').value]), { a: '10.45.1.0' }, 'n')), {
      kind: 'system',
      message: 'failed to allocate secondary ip address (a:10.45.1.0): Address already in use',
    });
    assert.deepEqual(failure(() => reserveAuxAddresses(pool, new Set(), { a: '10.45.1.1', b: '10.45.1.1' }, 'n')), {
      kind: 'system',
      message: 'failed to allocate secondary ip address (b:10.45.1.1): Address already in use',
    });
  });
});

describe('macFromIpv4', () => {
  it('is 02:42 and the address\'s four bytes', () => {
    assert.equal(macFromIpv4(ip('172.17.0.2')), '02:42:ac:11:00:02');
    assert.equal(macFromIpv4(ip('10.50.0.129')), '02:42:0a:32:00:81');
  });
});
