import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateUlimits } from './ulimits.js';

const daemon = { rlimitHard: { nofile: 20000, core: Infinity }, hasCapSysResource: false };
const bad = (message: string) => ({ kind: 'invalidParameter', message });

describe('validateUlimits', () => {
  it('accepts limits within what the daemon holds', () => {
    validateUlimits([{ Name: 'nofile', Soft: 100, Hard: 20000 }, { Name: 'core', Soft: -1, Hard: -1 }], daemon);
    validateUlimits(null, daemon);
  });
  it('refuses an unknown name', () => {
    assert.throws(() => validateUlimits([{ Name: 'bogus', Soft: 1, Hard: 2 }], daemon), bad('invalid ulimit type: bogus'));
  });
  it('refuses a soft limit above the hard one', () => {
    assert.throws(
      () => validateUlimits([{ Name: 'nofile', Soft: 300, Hard: 200 }], daemon),
      bad('ulimit nofile: soft limit must be less than or equal to hard limit: 300 > 200'),
    );
  });
  it("refuses a hard limit above the daemon's own, naming the ulimit and the limit", () => {
    assert.throws(
      () => validateUlimits([{ Name: 'nofile', Soft: 100, Hard: 30000 }], daemon),
      bad("ulimit nofile: hard limit 30000 is above the daemon's own hard limit 20000, which it cannot raise without CAP_SYS_RESOURCE"),
    );
    assert.throws(() => validateUlimits([{ Name: 'nofile', Soft: -1, Hard: -1 }], daemon), { kind: 'invalidParameter' });
  });
  it('lets a daemon with CAP_SYS_RESOURCE raise its limits', () => {
    validateUlimits([{ Name: 'nofile', Soft: 100, Hard: 30000 }], { ...daemon, hasCapSysResource: true });
  });
});
