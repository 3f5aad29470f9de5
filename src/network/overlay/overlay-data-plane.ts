// The overlay driver's data plane on one node, as libnetwork's overlay driver builds it: per swarm
// network a namespace of its own (`<dir>/1-<nid>`), a bridge `br0` there with the network's
// gateway, and a VXLAN device with the network's VNI whose UDP socket (the data-path port, 4789 by
// default) stays in the node's namespace; containers join through veth pairs on `br0`; remote
// endpoints are reached through static FDB and neighbour entries programmed from the peer table.
//
// Contract, for the swarm agent that drives it:
// - `open()` once at daemon start (the folder becomes a shared mount, as netns.ts's is), then
//   `reconcile(nids)` with the networks the node still has: every other network's namespace goes
//   with its links; kept ones are left as they are.
// - `ensureNetwork(network)` before the first call naming a network, after a restart too; repeating it changes
//   nothing, and a network half made by a killed berthd is made again.
// - `setPeers(nid, peers)` with the network's whole peer table each time (it may name this node's
//   own endpoints: they are left out); it adds what is missing and removes what is gone, read from
//   the kernel, so a restart loses nothing.
// - `attach(nid, netns, endpoint)` puts `endpoint.ifName` into a container's namespace with its
//   address and no route beyond its subnet (the container's default route stays on its gateway
//   network; the docker_gwbridge leg Docker adds for egress is not made here); `detach(nid, ip)`
//   removes it, also when the container's namespace is gone already.
// - `removeNetwork(nid)` removes the namespace with everything in it, attached endpoints included.
// Calls for one network run one at a time; calls for different networks may overlap.
// Encryption (`--opt encrypted`) is not done here.
import path from 'node:path';
import { createNetns, isNetns, listNetns, prepareNetnsDir, removeNetns } from '../../runtime/netns.js';
import {
  createBridge,
  createVeth,
  createVxlan,
  deleteFdb,
  deleteLinkIn,
  deleteNeighbour,
  linkNames,
  listFdb,
  listNeighbours,
  replaceFdb,
  replaceNeighbour,
} from '../../runtime/overlay-links.js';
import { IpNet } from '../ip-net.js';
import { OVERLAY_BRIDGE, sandboxName, vethName, vxlanName } from './overlay-layout.js';
import { macFromIp } from './overlay-mac.js';
import { overlayMtu } from './overlay-mtu.js';
import { diffPeerEntries, peerEntries, type PeerRecord } from './overlay-peers.js';

export type { PeerRecord } from './overlay-peers.js';

export const DEFAULT_DATA_PATH_PORT = 4789;

export interface OverlayDataPlaneOptions {
  /** where the networks' namespaces are bound (`<exec-root>/overlay`), apart from the containers' */
  dir: string;
  /** this node's address on the underlay, the tunnels' source */
  dataPathAddress: string;
  /** UDP port of VXLAN, the swarm's DataPathPort; 4789 unless given */
  dataPathPort?: number;
  /** the node's network namespace (a file), berthd's own unless given: the tests make nodes of theirs */
  nodeNetns?: string;
}

export interface OverlayNetwork {
  id: string;
  vni: number;
  /** CIDR: 10.0.1.0/24 */
  subnet: string;
  gateway: string;
  /** the network's driver options (com.docker.network.driver.mtu) */
  options: Readonly<Record<string, string>>;
}

export interface OverlayEndpoint {
  ip: string;
  prefixLen: number;
  /** the container's interface: eth1, eth2… */
  ifName: string;
  /** 02:42 and the address's bytes unless given */
  mac?: string;
}

interface NetworkState {
  netns: string;
  vxlan: string;
  mtu: number;
}

export class OverlayDataPlane {
  private readonly networks = new Map<string, NetworkState>();
  private readonly queues = new Map<string, Promise<unknown>>();

  private constructor(
    private readonly opts: OverlayDataPlaneOptions & { dataPathPort: number },
    private readonly folder: { release(): Promise<void> },
  ) {}

  static async open(opts: OverlayDataPlaneOptions): Promise<OverlayDataPlane> {
    const folder = await prepareNetnsDir(opts.dir);
    return new OverlayDataPlane({ ...opts, dataPathPort: opts.dataPathPort ?? DEFAULT_DATA_PATH_PORT }, folder);
  }

  /** berthd stops: the folder's mount goes unless a network's namespace is left in it (its containers run on). */
  close(): Promise<void> {
    return this.folder.release();
  }

  /** Removes the namespace of every network but `keep`'s (their IDs), with its links. */
  async reconcile(keep: readonly string[]): Promise<void> {
    const kept = new Set(keep.map(sandboxName));
    for (const { path: file } of await listNetns(this.opts.dir)) {
      if (!kept.has(path.basename(file))) await this.removeSandbox(file);
    }
  }

  ensureNetwork(network: OverlayNetwork): Promise<void> {
    return this.serial(network.id, async () => {
      const state = this.stateOf(network);
      if ((await isNetns(state.netns)) && (await this.isComplete(state))) {
        this.networks.set(network.id, state);
        return;
      }
      await this.removeSandbox(state.netns);
      // a device made before a kill, left in the node's namespace before its move
      await deleteLinkIn(this.opts.nodeNetns, state.vxlan);
      await createNetns(state.netns);
      try {
        const subnet = IpNet.parse(network.subnet);
        if (subnet === undefined) throw new Error(`not a subnet: ${network.subnet}`);
        await createBridge(state.netns, OVERLAY_BRIDGE, `${network.gateway}/${subnet.prefixLength}`, state.mtu);
        const vxlan = { name: state.vxlan, vni: network.vni, local: this.opts.dataPathAddress, port: this.opts.dataPathPort, mtu: state.mtu };
        await createVxlan(this.opts.nodeNetns, vxlan, state.netns, OVERLAY_BRIDGE);
      } catch (err) {
        await this.removeSandbox(state.netns);
        throw err;
      }
      this.networks.set(network.id, state);
    });
  }

  setPeers(nid: string, peers: readonly PeerRecord[]): Promise<void> {
    return this.serial(nid, async () => {
      const { netns, vxlan } = this.known(nid);
      const current = { fdb: await listFdb(netns, vxlan), neighbours: await listNeighbours(netns, vxlan) };
      const { put, remove } = diffPeerEntries(current, peerEntries(peers, this.opts.dataPathAddress));
      for (const e of remove.neighbours) await deleteNeighbour(netns, vxlan, e);
      for (const e of remove.fdb) await deleteFdb(netns, vxlan, e);
      // forwarding first: a neighbour answered by proxy ARP is then reachable at once
      for (const e of put.fdb) await replaceFdb(netns, vxlan, e);
      for (const e of put.neighbours) await replaceNeighbour(netns, vxlan, e);
    });
  }

  attach(nid: string, containerNetns: string, endpoint: OverlayEndpoint): Promise<void> {
    return this.serial(nid, async () => {
      const { netns, mtu } = this.known(nid);
      await createVeth(netns, {
        name: vethName(endpoint.ip),
        bridge: OVERLAY_BRIDGE,
        peerNetns: containerNetns,
        ifName: endpoint.ifName,
        mac: endpoint.mac ?? macFromIp(endpoint.ip),
        address: `${endpoint.ip}/${endpoint.prefixLen}`,
        mtu,
      });
    });
  }

  /** Removes the endpoint with address `ip`: both ends of its veth pair go. */
  detach(nid: string, ip: string): Promise<void> {
    return this.serial(nid, () => deleteLinkIn(this.known(nid).netns, vethName(ip)));
  }

  removeNetwork(nid: string): Promise<void> {
    return this.serial(nid, async () => {
      await this.removeSandbox(path.join(this.opts.dir, sandboxName(nid)));
      this.networks.delete(nid);
    });
  }

  private stateOf(network: OverlayNetwork): NetworkState {
    return { netns: path.join(this.opts.dir, sandboxName(network.id)), vxlan: vxlanName(network.vni, network.id), mtu: overlayMtu(network.options) };
  }

  private known(nid: string): NetworkState {
    const state = this.networks.get(nid);
    if (state === undefined) throw new Error(`overlay network ${nid} is not set up on this node`);
    return state;
  }

  private async isComplete(state: NetworkState): Promise<boolean> {
    const names = await linkNames(state.netns);
    return names.includes(OVERLAY_BRIDGE) && names.includes(state.vxlan);
  }

  /**
   * Deletes every link in the namespace, then the namespace: the links would go with it, but only
   * once the kernel gets round to it, and a VXLAN device holds its VNI and port until then.
   */
  private async removeSandbox(file: string): Promise<void> {
    if (await isNetns(file)) {
      for (const name of await linkNames(file)) if (name !== 'lo') await deleteLinkIn(file, name);
    }
    await removeNetns(file);
  }

  private serial<T>(nid: string, run: () => Promise<T>): Promise<T> {
    const next = (this.queues.get(nid) ?? Promise.resolve()).then(run, run);
    const settled = next.catch(() => undefined);
    this.queues.set(nid, settled);
    void settled.then(() => this.queues.get(nid) === settled && this.queues.delete(nid));
    return next;
  }
}
