// The routing mesh on this node, as libnetwork's ingress sandbox: a namespace of its own on the
// ingress overlay network (at the address the managers gave the node) with a leg on
// docker_gwbridge, made as a container's networking is made (its endpoint shows as
// `ingress-endpoint` on the ingress network, as dockerd's does); every port a service publishes
// through the mesh held on the node and DNAT'd to the sandbox (ingress-host.ts), and there DNAT'd
// to one of the service's tasks on any node, from the ingress network's records alone
// (ingress-sandbox.ts). A port with no task refuses connections. Calls run one at a time; one that
// fails is tried again, towards the latest ingress given, a second later, then less and less often.
import type { Logger } from 'pino';
import { Coalesced } from '../../lib/coalesced.js';
import type { SwarmEndpointChange } from '../dns/swarm-names.js';
import type { EndpointRecord } from '../endpoint-store.js';
import type { NetworkAttachment, NetworkedContainer } from '../network-attachments.js';
import type { NetworkRecord } from '../network-record.js';
import { programIngressHost } from './ingress-host.js';
import { IngressPorts } from './ingress-ports.js';
import { programIngressSandbox, type IngressProtocol, type IngressTarget } from './ingress-sandbox.js';

/** libnetwork's names for the sandbox and its endpoint */
const SANDBOX_ID = 'ingress-sbox';
const SANDBOX_ENDPOINT = 'ingress-endpoint';
const GATEWAY_BRIDGE_LINK = 'docker_gwbridge';
const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

export interface PublishedIngressPort {
  protocol: 'tcp' | 'udp' | 'sctp';
  publishedPort: number;
  targetPort: number;
}

export interface Ingress {
  network: NetworkRecord;
  /** the node's address on it, with its prefix length */
  address: string;
  ports: readonly PublishedIngressPort[];
}

export interface IngressMeshDeps {
  /** the swarm network kept on this node (the network area's record of it) */
  join(network: NetworkRecord): Promise<void>;
  leave(networkId: string): Promise<void>;
  prepare(c: NetworkedContainer): Promise<NetworkAttachment>;
  plumb(id: string): Promise<void>;
  detach(id: string): Promise<void>;
  netnsPath(id: string): string;
  /** every endpoint of the sandbox, its docker_gwbridge leg included */
  endpointsOf(id: string): EndpointRecord[];
  log: Logger;
}

interface Backend {
  ip: string;
  disabled: boolean;
  ports: readonly PublishedIngressPort[];
}

export class IngressMesh {
  /** the mesh as the swarm last gave it */
  private wanted: Ingress | undefined;
  /** the sandbox made: its network, and its address there as the swarm gave it (with its prefix length) */
  private current: { networkId: string; address: string } | undefined;
  private ports: PublishedIngressPort[] = [];
  private readonly held = new IngressPorts();
  private readonly backends = new Map<string, Backend>();
  private queue: Promise<unknown> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;
  /** the records' changes of one round programmed together, after what is queued (serially logs a failure) */
  private readonly rounds = new Coalesced(() => this.serially(() => this.program()).catch(() => undefined));

  constructor(private readonly deps: IngressMeshDeps) {}

  /** The node's mesh as the swarm gives it; undefined takes it away (the node left). */
  setIngress(ingress: Ingress | undefined): Promise<void> {
    this.wanted = ingress;
    return this.serially(() => this.converge());
  }

  /** berthd stops: what is under way ends, and nothing more is done (the sandbox stays, as containers do). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.rounds.settled();
    await this.queue;
  }

  /** A change of the ingress network's records: its tasks and the ports they serve. */
  apply({ kind, endpoint }: SwarmEndpointChange): void {
    if (kind === 'remove') this.backends.delete(endpoint.endpointId);
    else this.backends.set(endpoint.endpointId, { ip: endpoint.ip, disabled: kind === 'disable' || (kind === 'add' && endpoint.disabled), ports: endpoint.ingressPorts ?? [] });
    this.rounds.request();
  }

  /** The sandbox, the held ports and the rules made what the latest ingress asks for. */
  private async converge(): Promise<void> {
    const ingress = this.wanted;
    const same = ingress !== undefined && this.current?.networkId === ingress.network.id && this.current.address === ingress.address;
    if (!same) {
      await this.tearDown();
      if (ingress !== undefined) await this.makeSandbox(ingress);
    }
    await this.holdPorts(ingress?.ports.filter((p) => p.protocol !== 'sctp') ?? []);
    await this.program();
  }

  private async makeSandbox(ingress: Ingress): Promise<void> {
    const { network, address } = ingress;
    await this.deps.join(network);
    const ip = address.split('/')[0]!;
    await this.deps.prepare({ id: SANDBOX_ID, name: SANDBOX_ENDPOINT, networkMode: network.id, endpointsConfig: { [network.id]: { IPAMConfig: { IPv4Address: ip } } }, addressedBySwarm: true });
    try {
      await this.deps.plumb(SANDBOX_ID);
    } catch (err) {
      await this.deps.detach(SANDBOX_ID);
      throw err;
    }
    this.current = { networkId: network.id, address };
  }

  private async tearDown(): Promise<void> {
    // a sandbox a stopped berthd left: its endpoints go (reconcile may have taken them already)
    await this.deps.detach(SANDBOX_ID);
    if (this.current !== undefined) await this.deps.leave(this.current.networkId);
    this.current = undefined;
  }

  private async holdPorts(ports: readonly PublishedIngressPort[]): Promise<void> {
    const key = (p: PublishedIngressPort) => `${p.publishedPort}/${p.protocol}`;
    const wanted = new Set(ports.map(key));
    for (const p of this.ports) if (!wanted.has(key(p))) await this.held.release(p.protocol as IngressProtocol, p.publishedPort);
    for (const p of ports) {
      // dockerd logs such a clash and publishes all the same: the mesh's DNAT comes first
      await this.held.hold(p.protocol as IngressProtocol, p.publishedPort).catch((err: unknown) => this.deps.log.warn({ err }, 'swarm: an ingress port is held by another process'));
    }
    this.ports = [...ports];
  }

  private async program(): Promise<void> {
    const gateway = this.deps.endpointsOf(SANDBOX_ID).find((e) => e.egressOnly)?.ipv4Address?.split('/')[0];
    const ports = this.current === undefined || gateway === undefined ? [] : this.ports;
    const targets: IngressTarget[] = ports.map((p) => ({
      protocol: p.protocol as IngressProtocol,
      publishedPort: p.publishedPort,
      targetPort: p.targetPort,
      backends: [...this.backends.values()].filter((b) => !b.disabled && b.ports.some((x) => x.protocol === p.protocol && x.publishedPort === p.publishedPort)).map((b) => b.ip),
    }));
    if (this.current !== undefined && gateway !== undefined) await programIngressSandbox(this.deps.netnsPath(SANDBOX_ID), this.current.address.split('/')[0]!, targets);
    await programIngressHost({ sandboxAddress: gateway ?? '', sandboxLink: GATEWAY_BRIDGE_LINK, ports: ports.map((p) => ({ protocol: p.protocol as IngressProtocol, publishedPort: p.publishedPort })) });
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const guarded = () => (this.closed ? Promise.resolve() : step());
    const run = this.queue.then(guarded, guarded);
    this.queue = run.then(
      () => (this.retryMs = FIRST_RETRY_MS),
      (err: unknown) => {
        this.deps.log.warn({ err, retryMs: this.retryMs }, 'swarm: the routing mesh was not programmed; trying again');
        if (!this.closed) this.retryLater();
      },
    );
    return run;
  }

  private retryLater(): void {
    if (this.retry !== undefined) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(wait * 2, LAST_RETRY_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.serially(() => this.converge()).catch(() => undefined);
    }, wait);
  }
}
