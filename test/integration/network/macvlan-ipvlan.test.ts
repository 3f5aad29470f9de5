// macvlan and ipvlan networks on a parent link made in berthd's namespace (one end of a veth pair:
// the kernels the tests run on may lack dummy links), or on the link berth makes for a network
// created without a parent: two containers on one reach each other by address, and (a todo) by
// name as dockerd's embedded DNS answers on every user-defined network. A plugin's
// failure at start (macvlan refusing an MTU above its parent's) is an API 500 in the plugin's words,
// and a parent that went away since the network was made is named as dockerd names it; either
// leaves the container created and nothing behind: no namespace file, no endpoint, no link.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { createTestNetns, execIn, removeTestNetns } from '../../helpers/netns.js';
import { addParentLink, addressOn, containerNetns, httpd, links, netnsFiles, runDetached, sh, untilServed } from '../../helpers/network-probes.js';

/** Whether this kernel makes ipvlan links: the reason when it does not. */
function ipvlanMissing(): string | undefined {
  const probe = createTestNetns('ipvlan-probe');
  try {
    execIn(probe, 'ip', ['link', 'add', 'probe0', 'type', 'veth', 'peer', 'name', 'probe1']);
    execIn(probe, 'ip', ['link', 'add', 'iv0', 'link', 'probe0', 'type', 'ipvlan', 'mode', 'l2']);
    return undefined;
  } catch (err) {
    return `this kernel makes no ipvlan link (ip link add … type ipvlan: ${String((err as { stderr?: string }).stderr ?? err).trim()})`;
  } finally {
    removeTestNetns(probe);
  }
}

describe('macvlan and ipvlan', () => {
  let d: Berthd;
  let netns: string;
  before(async () => {
    d = await startWithBusybox({ config: { dns: ['192.0.2.53'] } });
    netns = d.netns!;
    addParentLink(netns, 'mvpar0');
    addParentLink(netns, 'ivpar0');
  });
  after(async () => {
    await teardown(d);
  });

  /** `ip -d link show eth0` in the container's namespace, with the host's iproute2 (busybox's shows no details). */
  async function linkDetails(container: string): Promise<string> {
    return execIn(containerNetns(path.join(d.dir, 'exec'), (await inspectContainer(d, container)).Id), 'ip', ['-d', 'link', 'show', 'eth0']);
  }

  async function twoOn(driver: 'macvlan' | 'ipvlan', subnet: string, parent: string): Promise<{ first: string; second: string; firstIp: string }> {
    const net = `${driver}-net`;
    const created = await d.docker(['network', 'create', '-d', driver, '--subnet', subnet, '-o', `parent=${parent}`, net]);
    assert.equal(created.code, 0, created.stderr);
    const first = `${driver}-1`;
    const second = `${driver}-2`;
    await runDetached(d, ['--name', first, '--network', net, 'busybox', ...httpd(first)]);
    await runDetached(d, ['--name', second, '--network', net, 'busybox', 'sleep', '600']);
    return { first, second, firstIp: await addressOn(d, first, net) };
  }

  describe('macvlan', () => {
    let c: { first: string; second: string; firstIp: string };
    before(async () => {
      c = await twoOn('macvlan', '10.77.0.0/24', 'mvpar0');
    });

    it('gives each container a macvlan link on the parent, and they reach each other by address', async () => {
      assert.equal(c.firstIp, '10.77.0.2');
      assert.match(await linkDetails(c.second), /macvlan mode bridge/);
      const ping = await sh(d, c.second, `ping -c1 -W2 ${c.firstIp}`);
      assert.equal(ping.code, 0, ping.stdout + ping.stderr);
      await untilServed(d, c.second, `http://${c.firstIp}/`, c.first);
    });

    // berthd's DNS server listens on bridges' gateways; a macvlan child can't reach its parent's
    // namespace (docs/design/networks.md). Skipped, not todo: a todo's failure reads as one in the run's output.
    it("find each other by name, as dockerd's embedded DNS answers on every user-defined network", { skip: 'the embedded DNS server does not serve macvlan networks yet' }, async () => {
      const lookup = await sh(d, c.second, `timeout 5 nslookup ${c.first}`);
      assert.equal(lookup.code, 0, `${lookup.stdout}${lookup.stderr}\nresolv.conf: ${(await sh(d, c.second, 'cat /etc/resolv.conf')).stdout}`);
      assert.match(lookup.stdout, new RegExp(`Address: ${c.firstIp.replace(/\./g, '\\.')}\\n`));
      await untilServed(d, c.second, `http://${c.first}/`, c.first);
    });
  });

  it('makes a parent link of the network\'s own when none is named, and removes it with the network', async () => {
    const created = await d.docker(['network', 'create', '-d', 'macvlan', '--subnet', '10.79.0.0/24', 'own-parent']);
    assert.equal(created.code, 0, created.stderr);
    const parent = `dm-${created.stdout.trim().slice(0, 12)}`;
    await runDetached(d, ['--name', 'own-1', '--network', 'own-parent', 'busybox', ...httpd('own-1')]);
    await runDetached(d, ['--name', 'own-2', '--network', 'own-parent', 'busybox', 'sleep', '600']);
    assert.ok(links(netns).some((l) => l.ifname === parent), `no ${parent} in berthd's namespace`);
    await untilServed(d, 'own-2', `http://${await addressOn(d, 'own-1', 'own-parent')}/`, 'own-1');
    assert.equal((await d.docker(['rm', '-f', 'own-1', 'own-2'])).code, 0);
    const removed = await d.docker(['network', 'rm', 'own-parent']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok(!links(netns).some((l) => l.ifname === parent), `${parent} is left in berthd's namespace`);
  });

  describe('ipvlan', () => {
    const missing = ipvlanMissing();

    it('gives each container an ipvlan link on the parent, and they reach each other by address', { skip: missing }, async () => {
      const c = await twoOn('ipvlan', '10.78.0.0/24', 'ivpar0');
      assert.match(await linkDetails(c.second), /ipvlan\s+mode l2/);
      const ping = await sh(d, c.second, `ping -c1 -W2 ${c.firstIp}`);
      assert.equal(ping.code, 0, ping.stdout + ping.stderr);
      await untilServed(d, c.second, `http://${c.firstIp}/`, c.first);
    });

    it("a kernel without ipvlan fails the start in the plugin's words, leaving the container created", { skip: missing === undefined ? 'this kernel makes ipvlan links' : false }, async () => {
      assert.equal((await d.docker(['network', 'create', '-d', 'ipvlan', '--subnet', '10.78.0.0/24', '-o', 'parent=ivpar0', 'ipvlan-net'])).code, 0);
      const r = await d.docker(['run', '-d', '--name', 'ipvlan-1', '--network', 'ipvlan-net', 'busybox', 'sleep', '600']);
      assert.equal(r.code, 125);
      assert.match(r.stderr, /docker: Error response from daemon: ipvlan: failed to create ipvlan: operation not supported/);
      assert.equal((await inspectContainer(d, 'ipvlan-1')).State.Status, 'created');
    });
  });

  describe('a failure at start', () => {
    /** Starts the container through the API, which must answer 500 with `message`; then checks that nothing is left of it. */
    async function startRefused(name: string, network: string, message: RegExp): Promise<void> {
      const linksBefore = links(netns).map((l) => l.ifname).sort();
      const files = netnsFiles(path.join(d.dir, 'exec'));
      const created = await d.docker(['create', '--name', name, '--network', network, 'busybox', 'sleep', '600']);
      assert.equal(created.code, 0, created.stderr);
      const r = await d.request('POST', `/v1.41/containers/${name}/start`);
      assert.equal(r.status, 500, r.body);
      assert.match((r.json() as { message: string }).message, message);
      const c = await inspectContainer(d, name);
      assert.deepEqual([c.State.Status, c.State.Running, c.State.ExitCode], ['created', false, 128]);
      assert.match(c.State.Error, message);
      assert.deepEqual(netnsFiles(path.join(d.dir, 'exec')), files, 'no namespace file left');
      assert.deepEqual(links(netns).map((l) => l.ifname).sort(), linksBefore, 'no link left');
      const inspected = JSON.parse((await d.docker(['network', 'inspect', network])).stdout) as Array<{ Containers: Record<string, unknown> }>;
      assert.deepEqual(inspected[0].Containers, {}, 'no endpoint left');
    }

    it("is an API 500 in the plugin's words (macvlan refuses an MTU above its parent's)", async () => {
      assert.equal((await d.docker(['network', 'create', '-d', 'macvlan', '--subnet', '10.79.0.0/24', '-o', 'parent=mvpar0p', '-o', 'com.docker.network.driver.mtu=9000', 'jumbo'])).code, 0);
      await startRefused('jumbo-1', 'jumbo', /^macvlan: invalid MTU 9000, must be \[0, master MTU\(1500\)\]/);
    });

    it('names a parent that went away since the network was made, as dockerd does', async () => {
      addParentLink(netns, 'gone0');
      assert.equal((await d.docker(['network', 'create', '-d', 'macvlan', '--subnet', '10.80.0.0/24', '-o', 'parent=gone0', 'orphan'])).code, 0);
      execIn(netns, 'ip', ['link', 'del', 'gone0']);
      await startRefused('orphan-1', 'orphan', /^the requested parent interface gone0 was not found on the Docker host$/);
    });
  });
});
