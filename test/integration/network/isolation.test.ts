// What berth's chains keep apart: two user-defined networks do not reach each other by address
// (while each reaches the host and its own members), and an internal network has no way out (no
// default route; with one added by hand its traffic is still dropped at the bridge) while its
// containers reach each other by name and address.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { startWithBusybox, teardown } from '../../helpers/containers.js';
import { addHostAddress, addressOn, httpd, runDetached, sh, untilServed } from '../../helpers/network-probes.js';

const HOST = '10.123.0.1';

describe('isolation', () => {
  let d: Berthd;
  before(async () => {
    d = await startWithBusybox({ config: { dns: ['192.0.2.53'] } });
    addHostAddress(d.netns!, `${HOST}/24`);
    for (const args of [['n1'], ['n2'], ['--internal', 'inside']]) assert.equal((await d.docker(['network', 'create', ...args])).code, 0);
    await runDetached(d, ['--name', 'a1', '--network', 'n1', 'busybox', ...httpd('a1')]);
    await runDetached(d, ['--name', 'a2', '--network', 'n1', 'busybox', 'sleep', '600']);
    await runDetached(d, ['--name', 'b1', '--network', 'n2', 'busybox', ...httpd('b1')]);
    await runDetached(d, ['--name', 'i1', '--network', 'inside', 'busybox', ...httpd('i1')]);
    await runDetached(d, ['--name', 'i2', '--network', 'inside', 'busybox', 'sleep', '600']);
  });
  after(async () => {
    await teardown(d);
  });

  describe('two user-defined networks', () => {
    it('reach their own members and the host', async () => {
      await untilServed(d, 'a2', `http://${await addressOn(d, 'a1', 'n1')}/`, 'a1');
      const host = await sh(d, 'a2', `ping -c1 -W2 ${HOST}`);
      assert.equal(host.code, 0, host.stdout + host.stderr);
    });

    it("do not reach each other's containers by address, either way", async () => {
      const b1 = await addressOn(d, 'b1', 'n2');
      const a1 = await addressOn(d, 'a1', 'n1');
      // both servers are up: each answers on its own network
      await untilServed(d, 'b1', `http://${b1}/`, 'b1');
      await untilServed(d, 'a2', `http://${a1}/`, 'a1');
      assert.notEqual((await sh(d, 'a2', `ping -c1 -W1 ${b1}`)).code, 0);
      assert.notEqual((await sh(d, 'a2', `timeout 3 wget -qO- http://${b1}/`)).code, 0);
      assert.notEqual((await sh(d, 'b1', `ping -c1 -W1 ${a1}`)).code, 0);
      assert.notEqual((await sh(d, 'b1', `timeout 3 wget -qO- http://${a1}/`)).code, 0);
    });
  });

  describe('an internal network', () => {
    it('lets its containers reach each other by name and address', async () => {
      await untilServed(d, 'i2', `http://${await addressOn(d, 'i1', 'inside')}/`, 'i1');
      await untilServed(d, 'i2', 'http://i1/', 'i1');
      assert.equal((await sh(d, 'i2', 'ping -c1 -W2 i1')).code, 0);
    });

    it('has no route out: neither the host address nor another network', async () => {
      const routes = (await sh(d, 'i2', 'ip route')).stdout;
      assert.doesNotMatch(routes, /^default/m, routes);
      const gatewayOfN1 = (await d.docker(['network', 'inspect', '-f', '{{(index .IPAM.Config 0).Gateway}}', 'n1'])).stdout.trim();
      for (const target of [HOST, gatewayOfN1, await addressOn(d, 'a1', 'n1')]) {
        const r = await sh(d, 'i2', `ping -c1 -W1 ${target}`);
        assert.notEqual(r.code, 0, `${target}: ${r.stdout}`);
        assert.match(r.stderr, /Network is unreachable/, target);
      }
    });

    it("drops what leaves it even when a container makes its own way out", async () => {
      const a1 = await addressOn(d, 'a1', 'n1');
      const gateway = (await d.docker(['network', 'inspect', '-f', '{{(index .IPAM.Config 0).Gateway}}', 'inside'])).stdout.trim();
      const r = await d.docker(['run', '--rm', '--cap-add', 'NET_ADMIN', '--network', 'inside', 'busybox', 'sh', '-c', `ip route add default via ${gateway} && ping -c1 -W1 ${a1}; echo "ping: $?"; timeout 3 wget -qO- http://${a1}/; echo "wget: $?"`]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ping: 1$/m, r.stdout);
      assert.doesNotMatch(r.stdout, /^a1$/m, r.stdout);
      assert.doesNotMatch(r.stdout, /^wget: 0$/m, r.stdout);
    });
  });
});
