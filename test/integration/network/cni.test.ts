// cni.ts with Debian's CNI plugins, for real, without touching the host's network: the plugins run
// in a namespace of the test's own that plays the host (Cni's hostNetns), containers' namespaces
// come from netns.ts, and a second test namespace, joined to the first by a veth pair, plays a
// machine outside. A bridge+static+portmap+loopback list is added, reached (through the bridge, a
// published port, 127.0.0.1 and hairpin), deleted down to what the plugins always leave, and
// broken in the ways a user can break it. Everything goes at the end, also when a test fails.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCommand } from '../../../src/runtime/child-process.js';
import { Cni } from '../../../src/runtime/cni.js';
import type { CniAttachment, CniNetworkConfigList, CniPluginConfig, CniResult } from '../../../src/runtime/cni-config.js';
import { CniPluginError } from '../../../src/runtime/cni-errors.js';
import { createNetns, listNetns, prepareNetnsDir, removeNetns } from '../../../src/runtime/netns.js';
import { createTestNetns, execIn, netnsTestDir, removeTestNetns, spawnIn, vethBetween } from '../../helpers/netns.js';

const BRIDGE = 'berth-t0';
const HOST_ADDRESS = '192.168.77.1';
const OUTSIDE_ADDRESS = '192.168.77.2';
const PUBLISHED = { hostPort: 8080, containerPort: 80, protocol: 'tcp' };

/** the nat table's built-in chains: iptables-nft makes a table with its first rule */
const NAT_TABLE = ['nat :INPUT ACCEPT', 'nat :OUTPUT ACCEPT', 'nat :POSTROUTING ACCEPT', 'nat :PREROUTING ACCEPT'];
/** what portmap makes the first time and leaves for every later container (its chains are shared) */
const PORTMAP_TOP_LEVEL = [
  'nat :CNI-HOSTPORT-DNAT -',
  'nat :CNI-HOSTPORT-MASQ -',
  'nat :CNI-HOSTPORT-SETMARK -',
  'nat -A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT',
  'nat -A OUTPUT -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT',
  'nat -A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ',
  'nat -A CNI-HOSTPORT-MASQ -m mark --mark 0x2000/0x2000 -j MASQUERADE',
  'nat -A CNI-HOSTPORT-SETMARK -m comment --comment "CNI portfwd masquerade mark" -j MARK --set-xmark 0x2000/0x2000',
];

/** answers each connection with the address it came from */
const SERVER = `require('net').createServer((s) => s.end('hello ' + s.remoteAddress.replace('::ffff:', ''))).listen(80, () => console.log('listening'))`;
const CLIENT = `const s = require('net').connect({ host: process.argv[1], port: +process.argv[2], timeout: 3000 });
s.on('data', (d) => process.stdout.write(d));
s.on('timeout', () => { console.error('timed out'); process.exit(1); });
s.on('error', (e) => { console.error(e.message); process.exit(1); });`;

let host: string;
let outside: string;
let dir: string;
let cni: Cni;
/** iptables-save and ip6tables-save in the host namespace before any plugin ran */
let pristine: string[];

before(async () => {
  host = createTestNetns('cni-host');
  outside = createTestNetns('cni-outside');
  vethBetween({ netns: host, name: 'berth-out', address: `${HOST_ADDRESS}/24` }, { netns: outside, name: 'berth-in', address: `${OUTSIDE_ADDRESS}/24` });
  execIn(outside, 'ip', ['route', 'add', 'default', 'via', HOST_ADDRESS]);
  dir = netnsTestDir('cni');
  await prepareNetnsDir(dir);
  cni = new Cni({ hostNetns: host });
  pristine = rulesIn(host);
});

after(async () => {
  for (const { path: file } of await listNetns(dir)) await removeNetns(file);
  removeTestNetns(outside);
  removeTestNetns(host);
});

function bridgePlugin(ipam: Record<string, unknown>, extra: Record<string, unknown> = {}): CniPluginConfig {
  return { type: 'bridge', bridge: BRIDGE, isGateway: true, ipMasq: true, hairpinMode: true, ipam, ...extra };
}

function staticIpam(address: string, gateway = '10.88.0.1'): Record<string, unknown> {
  return { type: 'static', addresses: [{ address, gateway }], routes: [{ dst: '0.0.0.0/0' }] };
}

function list(...plugins: CniPluginConfig[]): CniNetworkConfigList {
  return { cniVersion: '1.0.0', name: 'berth-test', plugins };
}

/** the list berth's bridge networks are made of */
function fullList(address = '10.88.0.2/24'): CniNetworkConfigList {
  return list(bridgePlugin(staticIpam(address)), { type: 'portmap', capabilities: { portMappings: true } }, { type: 'loopback' });
}

async function container(id: string): Promise<CniAttachment> {
  const netns = path.join(dir, id);
  await createNetns(netns);
  return { containerId: id, netns, ifName: 'eth0', capabilityArgs: { portMappings: [PUBLISHED] } };
}

/** Every rule of every table, iptables and ip6tables, each line led by its table, without comments and counters. */
function rulesIn(netns: string): string[] {
  const out: string[] = [];
  for (const save of ['iptables-save', 'ip6tables-save']) {
    let table = '';
    for (const line of execIn(netns, save).split('\n')) {
      if (line.startsWith('*')) table = line.slice(1);
      if (line === '' || line.startsWith('#') || line.startsWith('*') || line === 'COMMIT') continue;
      out.push(`${save === 'ip6tables-save' ? '6 ' : ''}${table} ${line.replace(/ \[\d+:\d+\]$/, '')}`);
    }
  }
  return out.sort();
}

/** Lines in `after` that `before` lacks. */
function added(before: string[], after: string[]): string[] {
  return after.filter((l) => !before.includes(l));
}

interface Link {
  ifname: string;
  link_type: string;
  master?: string;
  flags: string[];
  addr_info?: Array<{ family: string; local: string; prefixlen: number }>;
}

function links(netns: string): Link[] {
  return JSON.parse(execIn(netns, 'ip', ['-j', 'addr', 'show'])) as Link[];
}

function ipv4(link: Link | undefined): string[] {
  return (link?.addr_info ?? []).filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`);
}

function connect(from: string, address: string, port: number): string {
  return execIn(from, process.execPath, ['-e', CLIENT, address, String(port)]);
}

function assertNoVeth(attachment: CniAttachment): void {
  assert.deepEqual(links(host).map((l) => l.ifname).filter((n) => n.startsWith('veth')), []);
  assert.deepEqual(links(attachment.netns).map((l) => l.ifname), ['lo']);
}

describe('CNI plugins through cni.ts', () => {
  it('ADD plumbs a container into a bridge; DEL takes away its veth and its rules', async (t) => {
    const c = await container('plumbed');
    const result = await cni.add(fullList(), c);
    t.diagnostic(`result: ${JSON.stringify(result)}`);
    const names = result.interfaces?.map((i) => i.name) ?? [];
    assert.equal(names[0], BRIDGE);
    assert.match(names[1], /^veth/);
    assert.deepEqual(result.interfaces?.[2], { name: 'eth0', mac: result.interfaces?.[2].mac, sandbox: c.netns });
    assert.deepEqual(result.ips, [{ interface: 2, address: '10.88.0.2/24', gateway: '10.88.0.1' }]);
    assert.deepEqual(result.routes, [{ dst: '0.0.0.0/0' }]);

    // the container's side: eth0 with its address and the default route through the gateway
    assert.deepEqual(ipv4(links(c.netns).find((l) => l.ifname === 'eth0')), ['10.88.0.2/24']);
    assert.match(execIn(c.netns, 'ip', ['route', 'show', 'default']), /^default via 10\.88\.0\.1 dev eth0/);
    // the host's side: the bridge with the gateway's address, the veth in it
    const hostLinks = links(host);
    assert.deepEqual(ipv4(hostLinks.find((l) => l.ifname === BRIDGE)), ['10.88.0.1/24']);
    assert.equal(hostLinks.find((l) => l.ifname === names[1])?.master, BRIDGE);
    const rules = added(pristine, rulesIn(host));
    assert.ok(rules.some((l) => /^nat -A CNI-DN-\S+ -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10\.88\.0\.2:80$/.test(l)), rules.join('\n'));
    assert.ok(rules.some((l) => /^nat -A CNI-\S+ ! -d 224\.0\.0\.0\/4 .* -j MASQUERADE$/.test(l)), rules.join('\n'));

    await cni.del(fullList(), c, result);
    assertNoVeth(c);
    // the bridge stays (the plugin never removes one), and so do portmap's shared chains
    assert.ok(links(host).some((l) => l.ifname === BRIDGE));
    // (and the nat tables, the IPv6 one empty: portmap's DEL looks there too)
    const left = rulesIn(host);
    assert.deepEqual(added(pristine, left), [...NAT_TABLE, ...PORTMAP_TOP_LEVEL, ...NAT_TABLE.map((l) => `6 ${l}`)].sort());
    assert.deepEqual(added(left, pristine), []);

    // once they exist, ADD and DEL leave the tables exactly as they were
    const again = await cni.add(fullList(), c);
    await cni.del(fullList(), c, again);
    assert.deepEqual(rulesIn(host), left);
    assertNoVeth(c);
    await removeNetns(c.netns);
  });

  it('is reached through the bridge, a published port from outside, 127.0.0.1 and hairpin', async (t) => {
    const c = await container('reached');
    const result = await cni.add(fullList(), c);
    const server = spawnIn(c.netns, process.execPath, ['-e', SERVER]);
    try {
      const [ready] = (await once(server.stdout!, 'data')) as [Buffer];
      assert.equal(ready.toString().trim(), 'listening');
      // from the host's side, straight to the container through the bridge
      assert.equal(connect(host, '10.88.0.2', 80), 'hello 10.88.0.1');
      // from another machine, to the host's published port: DNAT, the caller's address kept
      assert.equal(connect(outside, HOST_ADDRESS, 8080), `hello ${OUTSIDE_ADDRESS}`);
      // from the host itself, to its own address and to 127.0.0.1: portmap's OUTPUT DNAT, and for
      // 127.0.0.1 route_localnet on the bridge and the masquerading mark (its snat option, on by default)
      assert.equal(connect(host, HOST_ADDRESS, 8080), `hello ${HOST_ADDRESS}`);
      assert.equal(execIn(host, 'sysctl', ['-n', `net.ipv4.conf.${BRIDGE}.route_localnet`]).trim(), '1');
      assert.equal(connect(host, '127.0.0.1', 8080), 'hello 10.88.0.1');
      // from the container to its own published port (hairpin on the bridge port, masqueraded)
      assert.equal(connect(c.netns, HOST_ADDRESS, 8080), 'hello 10.88.0.1');
      t.diagnostic('127.0.0.1:8080 on the host side answers: portmap sets route_localnet=1 on the bridge and masquerades what comes from 127.0.0.1');
    } finally {
      server.kill('SIGKILL');
      await cni.del(fullList(), c, result);
      await removeNetns(c.netns);
    }
    assert.throws(() => connect(outside, HOST_ADDRESS, 8080), /ECONNREFUSED/);
  });

  it('DEL again, or once the namespace is gone or left as a plain file, is no error', async () => {
    const c = await container('deleted');
    const result = await cni.add(fullList(), c);
    await cni.del(fullList(), c, result);
    await cni.del(fullList(), c, result);
    await removeNetns(c.netns);
    await cni.del(fullList(), c, result);
    // a file left without its namespace: the plugins would refuse it ("unknown FS magic")
    execIn(host, 'touch', [c.netns]);
    await cni.del(fullList(), c);
    await removeNetns(c.netns);
  });

  it("fails with the plugin's own message, typed, and leaves nothing behind", async () => {
    const c = await container('failed');
    const before = rulesIn(host);
    // the last: whether undoing the ADD fails too (the bridge plugin's DEL asks the missing IPAM plugin as well)
    const cases: Array<[string, CniNetworkConfigList, string, RegExp, boolean?]> = [
      ['an address outside the subnet of the bridge', list(bridgePlugin(staticIpam('10.77.0.5/24', '10.77.0.1'))), 'bridge', /^bridge: failed to set bridge addr: "berth-t0" already has an IP address different from 10\.77\.0\.1\/24$/],
      ['a gateway outside the subnet of the address', list(bridgePlugin(staticIpam('10.88.0.5/24', '10.99.0.1'))), 'bridge', /^bridge: failed to add route '\{0\.0\.0\.0 00000000\} via 10\.99\.0\.1 dev eth0': network is unreachable$/],
      ['a bridge name too long', list(bridgePlugin(staticIpam('10.89.0.2/24', '10.89.0.1'), { bridge: 'berth-bridge-too-long' })), 'bridge', /^bridge: failed to create bridge "berth-bridge-too-long": could not add "berth-bridge-too-long": numerical result out of range$/],
      ['an IPAM plugin that is missing', list(bridgePlugin({ type: 'no-such-ipam' })), 'bridge', /^bridge: failed to find plugin "no-such-ipam" in path \[\/usr\/lib\/cni\]; the standard plugins come with Debian's containernetworking-plugins.* \(undoing the ADD failed the same way\)$/, true],
      ['a plugin that is missing', list(bridgePlugin(staticIpam('10.88.0.5/24')), { type: 'no-such-plugin' }), 'no-such-plugin', /^no-such-plugin: failed to find plugin "no-such-plugin" in path \[\/usr\/lib\/cni\]; the standard plugins come with Debian's containernetworking-plugins/],
    ];
    for (const [what, l, plugin, message, undoFails = false] of cases) {
      await assert.rejects(cni.add(l, c), (err: unknown) => {
        assert.ok(err instanceof CniPluginError, `${what}: ${String(err)}`);
        assert.match(err.message, message, what);
        assert.deepEqual([err.kind, err.plugin, err.command, err.undoError?.command], ['system', plugin, 'ADD', undoFails ? 'DEL' : undefined], what);
        return true;
      });
      // the failed ADD was undone: no veth on either side (the bridge plugin leaves one otherwise)
      assertNoVeth(c);
    }
    // the plugins' per-container rules went with the DEL; the bridge of the failed lists may stay
    assert.deepEqual(added(before, rulesIn(host)).filter((l) => !l.includes('CNI-HOSTPORT')), []);
    await removeNetns(c.netns);
  });

  it('says which plugin directory it looked in when berth cannot find a plugin', async () => {
    const empty = netnsTestDir('no-plugins');
    const c = await container('no-plugins');
    await assert.rejects(new Cni({ hostNetns: host, pluginDirs: [empty] }).add(fullList(), c), (err: unknown) => err instanceof CniPluginError && err.plugin === 'bridge' && err.message.startsWith(`bridge: failed to find plugin "bridge" in path [${empty}]`));
    await removeNetns(c.netns);
  });

  it('CHECKs an attachment with the ADD result, and does nothing for a list that disables it', async () => {
    const c = await container('checked');
    const checked = list(bridgePlugin(staticIpam('10.88.0.2/24')), { type: 'loopback' });
    const result = await cni.add(checked, c);
    await cni.check(checked, c, result);
    execIn(c.netns, 'ip', ['link', 'set', 'eth0', 'down']);
    execIn(c.netns, 'ip', ['link', 'set', 'eth0', 'name', 'eth9']);
    await assert.rejects(cni.check(checked, c, result), (err: unknown) => err instanceof CniPluginError && err.command === 'CHECK' && err.message === 'bridge: Interface name eth0 not found');
    await cni.check({ ...checked, disableCheck: true }, c, result);
    execIn(c.netns, 'ip', ['link', 'set', 'eth9', 'name', 'eth0']);
    await cni.del(checked, c, result);
    await removeNetns(c.netns);
  });

  it("finds portmap 1.1.1's CHECK failing for an IPv4-only container (it looks for an IPv6 chain it never made): such lists need disableCheck", async () => {
    const c = await container('portmap-check');
    const result = await cni.add(fullList(), c);
    try {
      await assert.rejects(cni.check(fullList(), c, result), (err: unknown) => err instanceof CniPluginError && err.plugin === 'portmap' && /^portmap: could not check ipv6 dnat: chain CNI-DN-\S+ not found in iptables table nat$/.test(err.message));
    } finally {
      await cni.del(fullList(), c, result);
      await removeNetns(c.netns);
    }
  });

  it('takes this long for an ADD and a DEL, with and without portmap and loopback', async (t) => {
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(0);
    const lists: Array<[string, CniNetworkConfigList]> = [
      ['bridge+static', list(bridgePlugin(staticIpam('10.88.0.2/24')))],
      ['bridge+static+portmap', list(bridgePlugin(staticIpam('10.88.0.2/24')), { type: 'portmap', capabilities: { portMappings: true } })],
      ['bridge+static+portmap+loopback', fullList()],
    ];
    const createMs: number[] = [];
    const removeMs: number[] = [];
    for (const [name, l] of lists) {
      const addMs: number[] = [];
      const delMs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const start = performance.now();
        const c = await container(`timed-${i}`);
        const created = performance.now();
        const result: CniResult = await cni.add(l, c);
        const addedAt = performance.now();
        await cni.del(l, c, result);
        const deleted = performance.now();
        await removeNetns(c.netns);
        createMs.push(created - start);
        addMs.push(addedAt - created);
        delMs.push(deleted - addedAt);
        removeMs.push(performance.now() - deleted);
      }
      t.diagnostic(`${name}: ADD median ${median(addMs)} ms, DEL median ${median(delMs)} ms`);
    }
    t.diagnostic(`netns.ts: create median ${median(createMs)} ms, remove median ${median(removeMs)} ms`);
    const nsenterStart = performance.now();
    await runCommand('nsenter', [`--net=${host}`, 'true']);
    t.diagnostic(`each plugin call includes an nsenter into the test's host namespace, which berthd would not need: ${(performance.now() - nsenterStart).toFixed(1)} ms alone`);
  });
});
