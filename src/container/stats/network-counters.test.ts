import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNetDev } from './network-counters.js';

test('parseNetDev reads each interface but loopback', () => {
  const text = [
    'Inter-|   Receive                                                |  Transmit',
    ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
    '    lo:     100       2    0    0    0     0          0         0      100       2    0    0    0     0       0          0',
    '  eth0:    1234      10    1    2    0     0          0         0     5678      20    3    4    0     0       0          0',
    '',
  ].join('\n');
  assert.deepEqual(parseNetDev(text), {
    eth0: { rxBytes: 1234n, rxPackets: 10n, rxErrors: 1n, rxDropped: 2n, txBytes: 5678n, txPackets: 20n, txErrors: 3n, txDropped: 4n },
  });
});
