import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { daemonCreateLimits, hasEffectiveCap, parseLimits } from './create-limits.js';

const limitsText = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max core file size        0                    unlimited            bytes
Max processes             96551                96551                processes
Max open files            20000                20000                files
Max file locks            unlimited            unlimited            locks
`;

describe('parseLimits', () => {
  it('reads hard limits by Docker name, unlimited as Infinity', () => {
    assert.deepEqual(parseLimits(limitsText), { cpu: Infinity, core: Infinity, nproc: 96551, nofile: 20000, locks: Infinity });
  });
});

describe('hasEffectiveCap', () => {
  it('reads bit 24 of CapEff', () => {
    assert.equal(hasEffectiveCap('CapPrm:\t000001ffffffffff\nCapEff:\t000001fffeffffff\n', 24n), false);
    assert.equal(hasEffectiveCap('CapEff:\t000001ffffffffff\n', 24n), true);
    assert.equal(hasEffectiveCap('CapEff:\t0000000001000000\n', 24n), true);
  });
});

describe('daemonCreateLimits', () => {
  it("reads this process's limits and this machine's facts", () => {
    const l = daemonCreateLimits({ Type: 'json-file', Config: {} });
    assert.deepEqual(l.rlimitHard, parseLimits(readFileSync('/proc/self/limits', 'utf8')));
    assert.ok(l.rlimitHard.nofile > 0);
    assert.ok(l.cpuCount >= 1);
    assert.match(l.cpusetCpus, /^[0-9,-]+$/);
    assert.equal(typeof l.hasCapSysResource, 'boolean');
    assert.ok(l.cgroup.version === '1' || l.cgroup.version === '2');
  });
});
