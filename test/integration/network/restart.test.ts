// Network records survive berthd's death by SIGKILL: every network comes back as it was, the
// predefined ones with the same IDs, and the default pools go on skipping the subnets held.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

describe('network records across a kill -9', () => {
  const daemons: Berthd[] = [];
  after(async () => {
    for (const d of daemons) await d.stop();
  });

  it('come back whole', async () => {
    const first = await Berthd.start();
    daemons.push(first);
    const list = async (d: Berthd) => {
      const r = await d.request('GET', '/networks');
      assert.equal(r.status, 200, r.body);
      return (r.json() as Array<{ Name: string; Id: string }>).sort((a, b) => a.Name.localeCompare(b.Name));
    };
    for (const name of ['a', 'b']) {
      const r = await first.request('POST', '/networks/create', { json: { Name: name, Labels: { n: name } } });
      assert.equal(r.status, 201, r.body);
    }
    const before = await list(first);
    await first.stop('SIGKILL');

    const second = await Berthd.start({ dataRoot: first.dataRoot });
    daemons.push(second);
    assert.deepEqual(await list(second), before);
    const c = await second.request('POST', '/networks/create', { json: { Name: 'c' } });
    assert.equal(c.status, 201, c.body);
    const inspect = await second.request('GET', '/networks/c');
    const subnets = before.filter((n) => n.Name === 'a' || n.Name === 'b').map((n) => (n as unknown as { IPAM: { Config: Array<{ Subnet: string }> } }).IPAM.Config[0].Subnet);
    assert.deepEqual(subnets.sort(), ['172.18.0.0/16', '172.19.0.0/16']);
    assert.deepEqual((inspect.json() as { IPAM: { Config: unknown[] } }).IPAM.Config, [{ Subnet: '172.20.0.0/16', Gateway: '172.20.0.1' }]);
  });
});
