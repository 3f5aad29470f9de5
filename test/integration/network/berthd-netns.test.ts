// The test helper's berthd started inside a network namespace of the test's own (StartOptions.netns),
// as the networking suites start it so its bridges and rules never reach the host.
import assert from 'node:assert/strict';
import { readlinkSync, statSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { createTestNetns, removeTestNetns } from '../../helpers/netns.js';

const netns = createTestNetns('berthd');

after(() => removeTestNetns(netns));

describe('berthd in a network namespace', () => {
  it('runs in it, answers on its socket, and stops on a signal', async () => {
    const d = await Berthd.start({ netns });
    try {
      assert.equal(readlinkSync(`/proc/${d.proc.pid}/ns/net`), `net:[${statSync(netns).ino}]`);
      assert.equal((await d.request('GET', '/_ping')).status, 200);
    } finally {
      assert.deepEqual(await d.stop(), { code: 0, signal: null });
    }
  });
});
