// The overlay data plane for real, between two "nodes": each a namespace of the test's own with an
// underlay address (10.215.0.1 and .2 on a veth pair), the overlay of one network (VNI 4097,
// 10.0.1.0/24) and a "container" namespace attached to it. Pings and TCP cross the tunnel once
// each node has the other's peer, and stop when it is gone; detaching and removing the network
// leave no link, namespace or mount. Everything the test made goes in after(), also on failure.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OverlayDataPlane, type OverlayNetwork, type PeerRecord } from '../../../src/network/overlay/overlay-data-plane.js';
import { macFromIp } from '../../../src/network/overlay/overlay-mac.js';
import { listNetns } from '../../../src/runtime/netns.js';
import { mountsUnder } from '../../helpers/leftovers.js';
import { createTestNetns, execIn, netnsTestDir, removeTestNetns, spawnIn, vethBetween } from '../../helpers/netns.js';
import { until } from '../../helpers/until.js';

const NETWORK: OverlayNetwork = { id: 'f3a9c0d1e2b4a5968778695a4b3c2d1e', vni: 4097, subnet: '10.0.1.0/24', gateway: '10.0.1.1', options: {} };
const VXLAN = 'vx-001001-f3a9c';
const SANDBOX = '1-f3a9c0d1e2';

interface Node {
  name: string;
  underlay: string;
  netns: string;
  container: string;
  endpointIp: string;
  dir: string;
  plane: OverlayDataPlane;
}

const nodes: Node[] = [];
const peer = (n: Node): PeerRecord => ({ endpointIp: n.endpointIp, endpointMac: macFromIp(n.endpointIp), tunnelEndpointIp: n.underlay });

function links(netns: string): string[] {
  return (JSON.parse(execIn(netns, 'ip', ['-j', 'link', 'show'])) as Array<{ ifname: string }>).map((l) => l.ifname);
}

function pings(from: Node, to: string): boolean {
  try {
    execIn(from.container, 'busybox', ['ping', '-c', '1', '-W', '1', to]);
    return true;
  } catch {
    return false;
  }
}

/** Pings until one answers: a loaded machine may take longer than one ping's wait for the first. */
async function reaches(from: Node, to: string): Promise<void> {
  await until(`${to} from ${from.container}`, async () => pings(from, to), (ok) => ok, 10_000);
}

before(async () => {
  for (const [i, name] of ['a', 'b'].entries()) {
    const netns = createTestNetns(`overlay-node-${name}`);
    const underlay = `10.215.0.${i + 1}`;
    const dir = netnsTestDir(`overlay-${name}`);
    nodes.push({
      name,
      underlay,
      netns,
      container: createTestNetns(`overlay-ctr-${name}`),
      endpointIp: `10.0.1.${i + 2}`,
      dir,
      plane: await OverlayDataPlane.open({ dir, dataPathAddress: underlay, nodeNetns: netns }),
    });
  }
  vethBetween({ netns: nodes[0].netns, name: 'under0', address: '10.215.0.1/24' }, { netns: nodes[1].netns, name: 'under0', address: '10.215.0.2/24' });
});

after(async () => {
  for (const n of nodes) {
    await n.plane.reconcile([]);
    removeTestNetns(n.container);
    removeTestNetns(n.netns);
  }
});

describe('overlay data plane across two nodes', () => {
  it('builds the network namespace with br0 and the VXLAN device, and again changes nothing', async () => {
    for (const n of nodes) {
      await n.plane.ensureNetwork(NETWORK);
      await n.plane.ensureNetwork(NETWORK);
      const [sandbox] = await listNetns(n.dir);
      assert.equal(sandbox.path, `${n.dir}/${SANDBOX}`);
      assert.deepEqual(links(sandbox.path).sort(), ['br0', 'lo', VXLAN]);
      assert.ok(!links(n.netns).includes(VXLAN));
      const [vx] = JSON.parse(execIn(sandbox.path, 'ip', ['-j', '-d', 'link', 'show', VXLAN])) as Array<{ mtu: number; master: string; linkinfo: { info_data: Record<string, unknown> } }>;
      assert.equal(vx.mtu, 1450);
      assert.equal(vx.master, 'br0');
      assert.equal(vx.linkinfo.info_data.id, 4097);
      assert.equal(vx.linkinfo.info_data.port, 4789);
      assert.equal(vx.linkinfo.info_data.local, n.underlay);
      assert.equal(vx.linkinfo.info_data.learning, false);
      // the tunnel's socket is the node's
      assert.match(execIn(n.netns, 'cat', ['/proc/net/udp']), /:12B5 /);
    }
  });

  it('attaches a container as eth1 with its address and MAC, and no default route', async () => {
    for (const n of nodes) {
      await n.plane.attach(NETWORK.id, n.container, { ip: n.endpointIp, prefixLen: 24, ifName: 'eth1' });
      const [eth1] = JSON.parse(execIn(n.container, 'ip', ['-j', 'addr', 'show', 'eth1'])) as Array<{ address: string; mtu: number; addr_info: Array<{ family: string; local: string; prefixlen: number }> }>;
      assert.equal(eth1.address, macFromIp(n.endpointIp));
      assert.equal(eth1.mtu, 1450);
      assert.deepEqual(eth1.addr_info.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`), [`${n.endpointIp}/24`]);
      assert.equal(execIn(n.container, 'ip', ['route', 'show', 'default']).trim(), '');
    }
    await reaches(nodes[0], '10.0.1.1');
    assert.equal(pings(nodes[0], nodes[1].endpointIp), false, 'no peers yet');
  });

  it('reaches the other node once peers are programmed, by ping and TCP', async () => {
    const all = nodes.map(peer);
    for (const n of nodes) {
      await n.plane.setPeers(NETWORK.id, all);
      await n.plane.setPeers(NETWORK.id, all);
    }
    const [a, b] = nodes;
    const fdb = execIn(`${a.dir}/${SANDBOX}`, 'bridge', ['fdb', 'show', 'dev', VXLAN]);
    assert.match(fdb, new RegExp(`${macFromIp(b.endpointIp)} dst ${b.underlay} .*self permanent`));
    assert.doesNotMatch(fdb, new RegExp(macFromIp(a.endpointIp)));
    await reaches(a, b.endpointIp);
    await reaches(b, a.endpointIp);

    spawnIn(b.container, process.execPath, ['-e', `require('node:net').createServer((s) => s.end('hello from b')).listen(7000, '${b.endpointIp}')`]);
    const client = `const s = require('node:net').connect(7000, '${b.endpointIp}'); s.pipe(process.stdout); s.on('error', (e) => { console.error(e.message); process.exit(1); });`;
    const reply = await until('a TCP answer across nodes', () => {
      try {
        return execIn(a.container, process.execPath, ['-e', client]);
      } catch {
        return '';
      }
    }, (r) => r !== '');
    assert.equal(reply, 'hello from b');
  });

  it('stops reaching a peer once it is removed', async () => {
    const [a, b] = nodes;
    await a.plane.setPeers(NETWORK.id, [peer(a)]);
    assert.equal(execIn(`${a.dir}/${SANDBOX}`, 'bridge', ['fdb', 'show', 'dev', VXLAN]).includes(' dst '), false);
    assert.equal(pings(a, b.endpointIp), false);
    await a.plane.setPeers(NETWORK.id, nodes.map(peer));
    // the container's ARP entry for b may have failed meanwhile: resolving it again may take a retry
    await until('b reachable again', () => pings(a, b.endpointIp), (ok) => ok, 10_000);
  });

  it('detaches and removes the network, leaving no link, namespace or mount', async () => {
    for (const n of nodes) {
      await n.plane.detach(NETWORK.id, n.endpointIp);
      await n.plane.detach(NETWORK.id, n.endpointIp);
      assert.deepEqual(links(n.container), ['lo']);
      assert.deepEqual(links(`${n.dir}/${SANDBOX}`).sort(), ['br0', 'lo', VXLAN]);
      await n.plane.removeNetwork(NETWORK.id);
      assert.deepEqual(await listNetns(n.dir), []);
      assert.deepEqual(mountsUnder(`${n.dir}/${SANDBOX}`), []);
      assert.deepEqual(links(n.netns).sort(), ['lo', 'under0']);
    }
  });

  it('makes again a network a killed berthd left half made', async () => {
    const [a] = nodes;
    // killed between the device's creation and its move, then before the device was made at all
    execIn(a.netns, 'ip', ['link', 'add', VXLAN, 'type', 'vxlan', 'id', '4097', 'local', a.underlay, 'dstport', '4789']);
    createTestNetns(`overlay-a/${SANDBOX}`);
    await a.plane.ensureNetwork(NETWORK);
    assert.deepEqual(links(`${a.dir}/${SANDBOX}`).sort(), ['br0', 'lo', VXLAN]);
    assert.deepEqual(links(a.netns).sort(), ['lo', 'under0']);
    await a.plane.removeNetwork(NETWORK.id);
    assert.deepEqual(await listNetns(a.dir), []);
  });

  it('after a restart, keeps the networks still wanted and removes the others', async () => {
    const [a] = nodes;
    await a.plane.ensureNetwork(NETWORK);
    await a.plane.attach(NETWORK.id, a.container, { ip: a.endpointIp, prefixLen: 24, ifName: 'eth1' });
    const restarted = await OverlayDataPlane.open({ dir: a.dir, dataPathAddress: a.underlay, nodeNetns: a.netns });
    await restarted.reconcile([NETWORK.id]);
    await restarted.ensureNetwork(NETWORK);
    assert.deepEqual(links(a.container), ['lo', 'eth1'], 'a kept network keeps its endpoints');
    await restarted.reconcile([]);
    assert.deepEqual(await listNetns(a.dir), []);
    assert.deepEqual(links(a.container), ['lo']);
    assert.deepEqual(links(a.netns).sort(), ['lo', 'under0']);
  });
});
