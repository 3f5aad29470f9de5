import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIp, IpNet, parseIp } from './ip-net.js';

const net = (text: string) => IpNet.parse(text) as IpNet;

describe('IpNet', () => {
  it('reads a prefix as Go ParseCIDR does, keeping the address as written', () => {
    const n = net('10.11.0.5/16');
    assert.equal(n.toString(), '10.11.0.0/16');
    assert.equal(formatIp({ family: 4, value: n.address }), '10.11.0.5');
    assert.equal(n.size, 65536n);
    assert.equal(formatIp({ family: 4, value: n.last }), '10.11.255.255');
  });

  it('refuses what Go refuses', () => {
    for (const bad of ['bad', '10.0.0.0', '10.0.0.0/33', '10.0.0.0/-1', '010.0.0.0/8', 'fd00::/129', 'fe80::1%eth0/64', '10.0.0/8', '']) {
      assert.equal(IpNet.parse(bad), undefined, bad);
    }
  });

  it('prints IPv6 as Go does: lower case, the longest run of zero groups (the first of equals) as ::', () => {
    assert.equal(net('FD00:0:0:1::/64').toString(), 'fd00:0:0:1::/64');
    assert.equal(net('2001:db8:0:0:1:0:0:1/128').toString(), '2001:db8::1:0:0:1/128');
    assert.equal(net('1:0:1:0:1:0:1:0/128').toString(), '1:0:1:0:1:0:1:0/128');
    assert.equal(net('::/0').toString(), '::/0');
    assert.equal(net('::ffff:10.0.0.1/128').toString(), '::ffff:a00:1/128');
  });

  it('overlaps as libnetwork NetworkOverlaps: either holds the other', () => {
    assert.ok(net('172.16.0.0/12').overlaps(net('172.19.5.0/24')));
    assert.ok(net('172.19.5.0/24').overlaps(net('172.16.0.0/12')));
    assert.ok(!net('172.19.0.0/16').overlaps(net('172.20.0.0/16')));
    assert.ok(!net('10.0.0.0/8').overlaps(net('fd00::/8')));
  });

  it('places an address in the prefix by its bits below the mask', () => {
    const n = net('10.45.0.0/16');
    assert.equal(n.ordinalOf((parseIp('10.45.1.0') as { value: bigint }).value), 256n);
    assert.equal(n.withPrefix(n.addressAt(258n)), '10.45.1.2/16');
  });
});

describe('parseIp', () => {
  it('takes dotted IPv4 and IPv6, without zones or leading zeros', () => {
    assert.deepEqual(parseIp('172.17.0.1'), { family: 4, value: 0xac110001n });
    assert.equal(parseIp('fd00::1')?.family, 6);
    assert.equal(parseIp('fe80::1%eth0'), undefined);
    assert.equal(parseIp('172.017.0.1'), undefined);
    assert.equal(parseIp('nil'), undefined);
  });
});
