// The overlay driver as the network area drives it: the data plane (overlay-data-plane.ts) opened
// once the node knows its data-path address (it joins a swarm, or its swarm starts again), then
// each swarm network set up at its first endpoint and removed with its last, and each network's
// peers, which the swarm sends whenever its peer table changes, kept here so that a network set up
// after they came gets them at once.
import { EngineError } from '../../errors.js';
import { IpNet } from '../ip-net.js';
import { vxlanIdOf, type NetworkRecord } from '../network-record.js';
import { OverlayDataPlane, type OverlayEndpoint, type PeerRecord } from './overlay-data-plane.js';

export interface DataPath {
  address: string;
  port: number;
}

export class OverlayNetworks {
  private plane: Promise<OverlayDataPlane> | undefined;
  private dataPath: DataPath | undefined;
  private readonly peers = new Map<string, readonly PeerRecord[]>();
  /** the networks set up since the plane opened */
  private readonly ready = new Set<string>();

  constructor(
    private readonly dir: string,
    /** the swarm networks this node has now: those the plane keeps when it opens */
    private readonly joined: () => string[],
  ) {}

  /**
   * The node's underlay, once in a swarm: namespaces of networks the node left while berthd was
   * down go. Another one (the node left its swarm and joined another) opens the plane anew: the
   * networks of the swarm it left went with its tasks.
   */
  setDataPath(dataPath: DataPath): Promise<void> {
    if (this.dataPath !== undefined && (this.dataPath.address !== dataPath.address || this.dataPath.port !== dataPath.port)) {
      this.plane = undefined;
      this.ready.clear();
    }
    this.dataPath = dataPath;
    this.plane ??= (async () => {
      const plane = await OverlayDataPlane.open({ dir: this.dir, dataPathAddress: dataPath.address, dataPathPort: dataPath.port });
      await plane.reconcile(this.joined());
      return plane;
    })();
    this.plane.catch(() => (this.plane = undefined));
    return this.plane.then(() => undefined);
  }

  /** A network's whole peer table: every node's endpoints on it. */
  async setPeers(networkId: string, peers: readonly PeerRecord[]): Promise<void> {
    this.peers.set(networkId, peers);
    if (this.ready.has(networkId)) await (await this.open()).setPeers(networkId, peers);
  }

  /** Puts the endpoint into the container's namespace, its network set up first. */
  async attach(network: NetworkRecord, containerNetns: string, endpoint: OverlayEndpoint): Promise<void> {
    const plane = await this.open();
    if (!this.ready.has(network.id)) {
      const pool = network.ipam.config.find((p) => p.gateway !== undefined && IpNet.parse(p.subnet)?.family === 4);
      if (pool?.gateway === undefined) throw new EngineError('system', `overlay network ${network.name} has no IPv4 pool`);
      await plane.ensureNetwork({ id: network.id, vni: vxlanIdOf(network), subnet: pool.subnet, gateway: pool.gateway, options: network.options });
      this.ready.add(network.id);
      await plane.setPeers(network.id, this.peers.get(network.id) ?? []);
    }
    await plane.attach(network.id, containerNetns, endpoint);
  }

  async detach(networkId: string, ip: string): Promise<void> {
    if (this.ready.has(networkId)) await (await this.open()).detach(networkId, ip);
  }

  /** The network's namespace goes, with whatever is left in it. */
  async remove(networkId: string): Promise<void> {
    this.ready.delete(networkId);
    this.peers.delete(networkId);
    if (this.plane !== undefined) await (await this.plane).removeNetwork(networkId);
  }

  /** berthd stops: the data plane lets its folder go (the networks' namespaces stay for the containers that run on). */
  async close(): Promise<void> {
    const plane = await this.plane?.catch(() => undefined);
    await plane?.close();
  }

  private open(): Promise<OverlayDataPlane> {
    if (this.plane === undefined) throw new EngineError('system', 'this node has no data-path address for overlay networks: it is not in a swarm');
    return this.plane;
  }
}
