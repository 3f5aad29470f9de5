// Service load balancing and the routing mesh for real, in namespaces of the test's own (no berthd):
// a "lan" namespace whose bridge joins a client, three backends (each a TCP server answering its
// own name on port 7000) and an ingress sandbox; a "node" namespace reaching the sandbox over a
// veth and a "remote" client reaching the node over another. The client's VIP spreads over every
// backend, stops using one taken away, and refuses at once without backends; a connection to the
// node's published port is answered by the backends at their target port, from the remote
// client and from the node itself (127.0.0.1); emptying every set leaves no BERTH chain. Every
// namespace, and with it every process, link and rule, goes in after(), also on failure.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { programIngressHost } from '../../../src/network/service-lb/ingress-host.js';
import { IngressPorts } from '../../../src/network/service-lb/ingress-ports.js';
import { programIngressSandbox } from '../../../src/network/service-lb/ingress-sandbox.js';
import { programServiceVips } from '../../../src/network/service-lb/service-vips.js';
import { createTestNetns, execIn, removeTestNetns, spawnIn, vethBetween } from '../../helpers/netns.js';
import { until } from '../../helpers/until.js';

const VIP = '10.77.0.100';
const TARGET_PORT = 7000;
const PUBLISHED_PORT = 8080;
const SANDBOX_INGRESS = '10.77.0.3';
const SANDBOX_ON_NODE = '172.30.0.2';
const NODE_ADDRESS = '10.78.0.1';

const namespaces: string[] = [];
let lan: string;
let client: string;
let sandbox: string;
let node: string;
let remote: string;
const backends: Array<{ name: string; ip: string }> = [];

function netns(name: string): string {
  const file = createTestNetns(`lb-${name}`);
  namespaces.push(file);
  return file;
}

/** A namespace on the lan bridge as eth0 with `ip`/24. */
function onLan(member: string, port: string, ip: string): void {
  execIn(lan, 'ip', ['link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', member]);
  execIn(lan, 'ip', ['link', 'set', port, 'master', 'br0', 'up']);
  execIn(member, 'ip', ['addr', 'add', `${ip}/24`, 'dev', 'eth0']);
  execIn(member, 'ip', ['link', 'set', 'eth0', 'up']);
}

/** `count` connections one after another from `from` to host:port: how many each answer (or error code) had, and how long it took. */
function connections(from: string, host: string, port: number, count: number): { answers: Record<string, number> } {
  const script = `
    const net = require('node:net');
    const once = () => new Promise((resolve) => {
      const s = net.connect(${port}, '${host}');
      let data = '';
      s.setTimeout(3000, () => { s.destroy(); resolve('timeout'); });
      s.on('data', (c) => (data += c));
      s.on('end', () => resolve(data));
      s.on('error', (e) => resolve(e.code));
    });
    (async () => {
      const answers = {};
      for (let i = 0; i < ${count}; i++) { const a = await once(); answers[a] = (answers[a] ?? 0) + 1; }
      console.log(JSON.stringify({ answers }));
    })();`;
  return JSON.parse(execIn(from, process.execPath, ['-e', script], { timeoutMs: 60_000 })) as { answers: Record<string, number> };
}

function berthLines(file: string): string[] {
  return execIn(file, 'iptables-save').split('\n').filter((l) => l.includes('BERTH'));
}

before(async () => {
  lan = netns('lan');
  execIn(lan, 'ip', ['link', 'add', 'br0', 'type', 'bridge']);
  execIn(lan, 'ip', ['link', 'set', 'br0', 'up']);
  client = netns('client');
  onLan(client, 'pclient', '10.77.0.2');
  for (const [i, name] of ['b1', 'b2', 'b3'].entries()) {
    const file = netns(name);
    const ip = `10.77.0.${11 + i}`;
    onLan(file, `p${name}`, ip);
    backends.push({ name, ip });
    spawnIn(file, process.execPath, ['-e', `require('node:net').createServer((s) => s.end('${name}')).listen(${TARGET_PORT})`]);
  }
  sandbox = netns('sandbox');
  onLan(sandbox, 'psandbox', SANDBOX_INGRESS);
  node = netns('node');
  vethBetween({ netns: node, name: 'sbx0', address: '172.30.0.1/24' }, { netns: sandbox, name: 'eth1', address: `${SANDBOX_ON_NODE}/24` });
  execIn(sandbox, 'ip', ['route', 'add', 'default', 'via', '172.30.0.1']);
  remote = netns('remote');
  vethBetween({ netns: node, name: 'ext0', address: `${NODE_ADDRESS}/24` }, { netns: remote, name: 'eth0', address: '10.78.0.2/24' });
  for (const b of backends) await until(`${b.name} listening`, () => connections(client, b.ip, TARGET_PORT, 1).answers[b.name] === 1, (ok) => ok);
});

after(() => {
  for (const file of namespaces.reverse()) removeTestNetns(file);
});

describe('service VIP in a container namespace', () => {
  it('spreads 300 connections to the VIP over every backend', async () => {
    assert.equal(await programServiceVips(client, [{ vip: VIP, backends: backends.map((b) => b.ip) }]), true);
    assert.equal(await programServiceVips(client, [{ vip: VIP, backends: [...backends.map((b) => b.ip)].reverse() }]), false, 'the same set again changes nothing');
    const { answers } = connections(client, VIP, TARGET_PORT, 300);
    assert.deepEqual(Object.keys(answers).sort(), ['b1', 'b2', 'b3']);
    // 1/3 each: below 50 of 300 is a 1-in-10^9 event
    for (const b of backends) assert.ok(answers[b.name] > 50, JSON.stringify(answers));
  });

  it('stops using a backend taken out of the set', async () => {
    assert.equal(await programServiceVips(client, [{ vip: VIP, backends: [backends[0].ip, backends[2].ip] }]), true);
    const { answers } = connections(client, VIP, TARGET_PORT, 100);
    assert.deepEqual(Object.keys(answers).sort(), ['b1', 'b3']);
  });

  it('refuses at once with no backends', async () => {
    await programServiceVips(client, [{ vip: VIP, backends: [] }]);
    // a hang would answer 'timeout'
    assert.deepEqual(connections(client, VIP, TARGET_PORT, 5).answers, { ECONNREFUSED: 5 });
  });

  it('applies a set of 100 backends, and a change of it, in one restore each', async (t) => {
    const hundred = Array.from({ length: 100 }, (_, i) => `10.77.1.${i + 1}`);
    let start = performance.now();
    await programServiceVips(client, [{ vip: VIP, backends: hundred }, { vip: '10.77.0.101', backends: [backends[0].ip] }]);
    t.diagnostic(`100 backends applied in ${Math.round(performance.now() - start)} ms`);
    start = performance.now();
    assert.equal(await programServiceVips(client, [{ vip: VIP, backends: hundred.slice(1) }, { vip: '10.77.0.101', backends: [backends[0].ip] }]), true);
    t.diagnostic(`one of 100 removed in ${Math.round(performance.now() - start)} ms`);
    start = performance.now();
    assert.equal(await programServiceVips(client, [{ vip: VIP, backends: hundred.slice(1) }, { vip: '10.77.0.101', backends: [backends[0].ip] }]), false);
    t.diagnostic(`the same set again in ${Math.round(performance.now() - start)} ms`);
    const lines = berthLines(client);
    assert.equal(lines.filter((l) => l.startsWith(`-A BERTH-VIP-${VIP} `)).length, 99);
    assert.deepEqual(connections(client, '10.77.0.101', TARGET_PORT, 3).answers, { b1: 3 });
  });
});

const hostConfig = (ports: Array<{ protocol: 'tcp'; publishedPort: number }>) => ({ netns: node, sandboxAddress: SANDBOX_ON_NODE, sandboxLink: 'sbx0', ports });

describe('routing mesh', () => {
  it('answers the node\'s published port from the backends at their target port, for a remote client and the node itself', async () => {
    assert.equal(await programIngressHost(hostConfig([{ protocol: 'tcp', publishedPort: PUBLISHED_PORT }])), true);
    assert.equal(await programIngressHost(hostConfig([{ protocol: 'tcp', publishedPort: PUBLISHED_PORT }])), false);
    const target = { protocol: 'tcp' as const, publishedPort: PUBLISHED_PORT, targetPort: TARGET_PORT, backends: backends.map((b) => b.ip) };
    assert.equal(await programIngressSandbox(sandbox, SANDBOX_INGRESS, [target]), true);
    assert.equal(await programIngressSandbox(sandbox, SANDBOX_INGRESS, [target]), false);
    assert.equal(execIn(node, 'sysctl', ['-n', 'net.ipv4.ip_forward']).trim(), '1');
    assert.equal(execIn(node, 'sysctl', ['-n', 'net.ipv4.conf.sbx0.route_localnet']).trim(), '1');
    assert.equal(execIn(node, 'sysctl', ['-n', 'net.ipv4.conf.ext0.route_localnet']).trim(), '0');

    const fromRemote = connections(remote, NODE_ADDRESS, PUBLISHED_PORT, 150).answers;
    assert.deepEqual(Object.keys(fromRemote).sort(), ['b1', 'b2', 'b3'], JSON.stringify(fromRemote));
    const fromNode = connections(node, '127.0.0.1', PUBLISHED_PORT, 60).answers;
    assert.deepEqual(Object.keys(fromNode).sort(), ['b1', 'b2', 'b3'], JSON.stringify(fromNode));
  });

  it('refuses at once when the service has no backends', async () => {
    await programIngressSandbox(sandbox, SANDBOX_INGRESS, [{ protocol: 'tcp', publishedPort: PUBLISHED_PORT, targetPort: TARGET_PORT, backends: [] }]);
    // a hang would answer 'timeout'
    assert.deepEqual(connections(remote, NODE_ADDRESS, PUBLISHED_PORT, 5).answers, { ECONNREFUSED: 5 });
  });
});

describe('ingress port holding', () => {
  const listen = (server: net.Server, port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, resolve));

  it('holds a port once, reports a local process on it in dockerd\'s words, and lets it go', async () => {
    const ports = new IngressPorts();
    const squatter = net.createServer();
    await listen(squatter, 0);
    const port = (squatter.address() as net.AddressInfo).port;
    await assert.rejects(ports.hold('tcp', port), { message: `failed to create proxy for port ${port}: listen tcp :${port}: bind: address already in use` });
    await new Promise((resolve) => squatter.close(resolve));
    await ports.hold('tcp', port);
    await ports.hold('tcp', port);
    await ports.hold('udp', port);
    await assert.rejects(listen(net.createServer(), port), { code: 'EADDRINUSE' });
    await ports.release('tcp', port);
    const after = net.createServer();
    await listen(after, port);
    await new Promise((resolve) => after.close(resolve));
    await ports.releaseAll();
  });
});

describe('cleanup', () => {
  it('leaves no BERTH chain or jump once every set is empty', async () => {
    assert.equal(await programServiceVips(client, []), true);
    assert.equal(await programIngressSandbox(sandbox, SANDBOX_INGRESS, []), true);
    assert.equal(await programIngressHost(hostConfig([])), true);
    assert.equal(await programServiceVips(client, []), false);
    for (const file of [client, sandbox, node]) assert.deepEqual(berthLines(file), []);
  });
});
