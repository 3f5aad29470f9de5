import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { directRoutes, interfaceNames, nameservers } from './host-network.js';

describe('directRoutes', () => {
  it('reads the routes without a gateway, but the default one, from /proc/net/route', () => {
    const table = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0',
      'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
      'docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0',
      'eth1\t00000A0A\t0102000A\t0003\t0\t0\t0\t0000FFFF\t0\t0\t0',
      '',
    ].join('\n');
    assert.deepEqual(directRoutes(table).map(String), ['192.0.2.0/24', '172.17.0.0/16']);
    assert.deepEqual(directRoutes(''), []);
  });
});

describe('nameservers', () => {
  it('gives each IPv4 nameserver as a /32', () => {
    const conf = '# comment\nnameserver 10.255.255.53\nnameserver fd00::53\n  nameserver 192.168.1.1 \nsearch example.com\n';
    assert.deepEqual(nameservers(conf).map(String), ['10.255.255.53/32', '192.168.1.1/32']);
  });
});

describe('interfaceNames', () => {
  it('reads the names of /proc/net/dev, the namespace of the process that reads it', () => {
    const dev = [
      'Inter-|   Receive                                                |  Transmit',
      ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
      '    lo:  1023 17    0    0    0     0          0         0  1023 17    0    0    0     0       0          0',
      'br-0123456789ab:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0',
      '  eth0.10:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0',
      '',
    ].join('\n');
    assert.deepEqual(interfaceNames(dev), ['lo', 'br-0123456789ab', 'eth0.10']);
    assert.deepEqual(interfaceNames(''), []);
  });
});
