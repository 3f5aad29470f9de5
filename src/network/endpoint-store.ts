// Endpoints: a container's attachment to a network, one record each under
// <data-root>/network/endpoints/, saved before anyone is told of it. A network's endpoints are
// what inspect lists under Containers, what keeps the network from removal, and what the DNS
// server answers from.
import { RecordDir } from './record-dir.js';

export interface EndpointRecord {
  /** 64 hex digits: the EndpointID */
  id: string;
  networkId: string;
  containerId: string;
  containerName: string;
  /** the interface's name in the container: eth0, eth1, ... */
  ifName: string;
  /** empty where the driver gives none (host, null, ipvlan) */
  macAddress: string;
  /** CIDR: 172.18.0.2/16 */
  ipv4Address?: string;
  gateway?: string;
  ipv6Address?: string;
  ipv6Gateway?: string;
  aliases: string[];
  links: string[];
  /** the addresses asked for (EndpointSettings.IPAMConfig), null when none was */
  ipamConfig: { ipv4Address?: string; ipv6Address?: string } | null;
  /** the docker_gwbridge leg of a container whose networks are overlays: its way out, which dockerd shows in no container's inspect */
  egressOnly?: true;
  /** a plain container's on an attachable swarm network: its address is the managers', given back when it leaves */
  swarmAttachment?: true;
  /** what the plumbing keeps to undo the attachment (the CNI result, for DEL); berth's records never read it */
  plumbing?: unknown;
}

export class EndpointStore {
  private readonly dir: RecordDir<EndpointRecord>;
  private readonly byId = new Map<string, EndpointRecord>();

  constructor(dir: string) {
    this.dir = new RecordDir(dir);
    for (const record of this.dir.load()) this.byId.set(record.id, record);
  }

  get(id: string): EndpointRecord | undefined {
    return this.byId.get(id);
  }

  all(): EndpointRecord[] {
    return [...this.byId.values()];
  }

  on(networkId: string): EndpointRecord[] {
    return this.all().filter((e) => e.networkId === networkId);
  }

  /** A container's endpoints, by interface: eth0 first. */
  of(containerId: string): EndpointRecord[] {
    const index = (e: EndpointRecord) => Number(/\d+$/.exec(e.ifName)?.[0] ?? 0);
    return this.all()
      .filter((e) => e.containerId === containerId)
      .sort((a, b) => index(a) - index(b));
  }

  /** In memory at once (what the next allocation sees); resolves once durable, and undone if it can't be. */
  async put(record: EndpointRecord): Promise<void> {
    await this.dir.writeThrough(this.byId, record.id, record);
  }


  /** Gone from memory at once; resolves once gone from disk. */
  async delete(id: string): Promise<void> {
    this.byId.delete(id);
    await this.dir.remove(id);
  }
}
