// docker network connect and disconnect of a running container change what it reaches: connected
// to n2 it finds n2's container by name and address, and `docker network inspect` and its own
// NetworkSettings.Networks show the endpoint; disconnected, it reaches neither and both forget it.
// A network in use is not removed (403 "has active endpoints", as the reference engine, dockerd
// 20.10, answers); once unused it goes, and its bridge with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Berthd } from '../../helpers/berthd.js';
import { inspectContainer, startWithBusybox, teardown } from '../../helpers/containers.js';
import { addressOn, httpd, links, runDetached, sh, untilServed } from '../../helpers/network-probes.js';

interface NetworkJson {
  Id: string;
  Containers: Record<string, { Name: string; IPv4Address: string; EndpointID: string } | undefined>;
}

describe('connect and disconnect', () => {
  let d: Berthd;
  let targetIp: string;

  async function network(name: string): Promise<NetworkJson> {
    const r = await d.docker(['network', 'inspect', name]);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as NetworkJson[])[0];
  }

  before(async () => {
    // the upstream no route leads to: a name not found fails at once
    d = await startWithBusybox({ config: { dns: ['192.0.2.53'] } });
    for (const n of ['n1', 'n2']) assert.equal((await d.docker(['network', 'create', n])).code, 0);
    await runDetached(d, ['--name', 'target', '--network', 'n2', 'busybox', ...httpd('target')]);
    await runDetached(d, ['--name', 'roamer', '--network', 'n1', 'busybox', 'sleep', '600']);
    targetIp = await addressOn(d, 'target', 'n2');
  });
  after(async () => {
    await teardown(d);
  });

  it('a container on n1 reaches nothing on n2', async () => {
    const byName = await sh(d, 'roamer', 'ping -c1 -W1 target');
    assert.notEqual(byName.code, 0);
    assert.match(byName.stderr, /bad address 'target'/);
    assert.notEqual((await sh(d, 'roamer', `ping -c1 -W1 ${targetIp}`)).code, 0);
  });

  it('connected to n2, it reaches the container on n2 by name, and both inspects show the endpoint', async () => {
    const r = await d.docker(['network', 'connect', 'n2', 'roamer']);
    assert.equal(r.code, 0, r.stderr);
    const roamer = await inspectContainer(d, 'roamer');
    assert.deepEqual(Object.keys(roamer.NetworkSettings.Networks).sort(), ['n1', 'n2']);
    const onN2 = roamer.NetworkSettings.Networks.n2;
    assert.match(onN2.IPAddress, /^\d+\.\d+\.\d+\.\d+$/);
    const n2 = await network('n2');
    assert.equal(onN2.NetworkID, n2.Id);
    const entry = n2.Containers[roamer.Id];
    assert.deepEqual([entry?.Name, entry?.EndpointID, entry?.IPv4Address], ['roamer', onN2.EndpointID, `${onN2.IPAddress}/16`]);
    // its new interface has that address
    assert.match((await sh(d, 'roamer', 'ip -o -4 addr show eth1')).stdout, new RegExp(`inet ${onN2.IPAddress.replace(/\./g, '\\.')}/16 `));
    const ping = await sh(d, 'roamer', 'ping -c1 -W2 target');
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.match(ping.stdout, new RegExp(`^PING target \\(${targetIp.replace(/\./g, '\\.')}\\)`));
    await untilServed(d, 'roamer', 'http://target/', 'target');
    // and the container on n2 finds it by name in turn
    assert.equal((await sh(d, 'target', 'ping -c1 -W2 roamer')).code, 0);
  });

  it('disconnected from n2, it reaches it no more, and both inspects forget the endpoint', async () => {
    const id = (await inspectContainer(d, 'roamer')).Id;
    const r = await d.docker(['network', 'disconnect', 'n2', 'roamer']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(Object.keys((await inspectContainer(d, 'roamer')).NetworkSettings.Networks), ['n1']);
    assert.equal((await network('n2')).Containers[id], undefined);
    assert.deepEqual((await sh(d, 'roamer', 'ls /sys/class/net')).stdout.trim().split(/\s+/).sort(), ['eth0', 'lo']);
    const byName = await sh(d, 'roamer', 'ping -c1 -W1 target');
    assert.notEqual(byName.code, 0);
    assert.match(byName.stderr, /bad address 'target'/);
    assert.notEqual((await sh(d, 'roamer', `ping -c1 -W1 ${targetIp}`)).code, 0);
    // still on n1: its own network's gateway answers
    const gateway = (await inspectContainer(d, 'roamer')).NetworkSettings.Networks.n1.Gateway;
    assert.equal((await sh(d, 'roamer', `ping -c1 -W2 ${gateway}`)).code, 0);
  });

  it('a network with a container on it is not removed: 403 "has active endpoints"; once empty it goes with its bridge', async () => {
    const n2 = await network('n2');
    const cli = await d.docker(['network', 'rm', 'n2']);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, new RegExp(`Error response from daemon: error while removing network: network n2 id ${n2.Id} has active endpoints`));
    const api = await d.request('DELETE', '/v1.41/networks/n2');
    assert.equal(api.status, 403, api.body);
    assert.deepEqual(api.json(), { message: `error while removing network: network n2 id ${n2.Id} has active endpoints` });
    const bridge = `br-${n2.Id.slice(0, 12)}`;
    assert.ok(links(d.netns!).some((l) => l.ifname === bridge));
    assert.equal((await d.docker(['rm', '-f', 'target'])).code, 0);
    const rm = await d.docker(['network', 'rm', 'n2']);
    assert.equal(rm.code, 0, rm.stderr);
    assert.ok(!links(d.netns!).some((l) => l.ifname === bridge), 'the bridge went with the network');
  });
});
