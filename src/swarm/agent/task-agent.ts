// The tasks of this node, as swarmkit's agent keeps them: it asks a manager for its assignments
// (a long poll that answers when they change), runs a TaskRunner for each task, and sends what
// the runners report, again until a manager takes it. Secrets are held in memory only, and only
// while a task of this node may still run with them. On a restart of berthd the containers of
// tasks are found again by their task ID label; those whose task the swarm no longer gives the
// node are removed.
import type { Logger } from 'pino';
import { hasEnded, type TaskRecord, type TaskStatus } from '../services/service-records.js';
import type { AssignedObject, Assignments, NetworkAttachRequest, NetworkAttachResponse, NetworkDetachRequest, TableEntriesRequest, TaskStatusReport, WireEntry } from '../transport/cluster-protocol.js';
import { endpointChanges, swarmEndpointChange } from '../endpoints/endpoint-changes.js';
import { ENDPOINT_TABLE, NetworkTables, PEER_TABLE, type TableName, type TablesSnapshot } from '../endpoints/network-tables.js';
import { decodePeerRecord, peerEntry } from '../endpoints/peer-record.js';
import { encodeEndpointRecord } from '../endpoint-record.js';
import type { OwnedEntry } from '../endpoints/table-store.js';
import { macFromIp } from '../../network/overlay/overlay-mac.js';
import { expandTemplate, type TemplateContext } from './templating.js';
import { TaskRunner, type TaskInputs } from './task-runner.js';
import type { FileDelivery, TaskNetworking, TaskRuntime } from './task-runtime.js';

/** How long an assignments call may wait for a change. */
const POLL_WAIT_MS = 20_000;
const RETRY_MS = 1000;
/** the label each task's container carries (task-runner.ts) */
export const TASK_ID_LABEL = 'com.docker.swarm.task.id';

/** Where the node's tasks come from and its reports go: the manager in this berthd, or one over the cluster port. */
export interface AssignmentSource {
  assignments(known: string, waitMs: number, signal: AbortSignal): Promise<Assignments>;
  report(reports: TaskStatusReport[]): Promise<void>;
  /** the node's whole set of network table entries */
  publish(entries: TableEntriesRequest['entries']): Promise<void>;
  /** an address on an attachable swarm network for a plain container, and its release */
  attach(req: NetworkAttachRequest): Promise<NetworkAttachResponse>;
  detach(req: NetworkDetachRequest): Promise<void>;
}

export interface TaskAgentDeps {
  nodeId: string;
  hostname: () => string;
  source: AssignmentSource;
  runtime: TaskRuntime;
  networking: TaskNetworking;
  /** this node's data-path address, the far end of other nodes' tunnels to it */
  dataPathAddr: string;
  log: Logger;
}

export class TaskAgent {
  private readonly runners = new Map<string, TaskRunner>();
  private readonly pending = new Map<string, TaskStatus>();
  private adopted = new Map<string, string>();
  private readonly stop = new AbortController();
  private polling: Promise<void> | undefined;
  private flushing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  /** a publication that failed is tried again this soon, not at the next change (which may be long in coming) */
  private republish: NodeJS.Timeout | undefined;
  /** what the node published last, and the publication under way */
  private published = '';
  private session = '';
  private publishing: Promise<void> = Promise.resolve();
  /** the tables of the networks this node's tasks are on, every node's entries */
  readonly tables = new NetworkTables();
  /** the networks whose peer table changed since the overlay last heard of them */
  private readonly peersChanged = new Set<string>();
  private dataPathPort = 0;
  /** the node's address on the ingress network, where its routing mesh sandbox is */
  private ingress: Assignments['ingress'];
  private readonly stopWatchingAttachments: () => void;

  constructor(private readonly deps: TaskAgentDeps) {
    this.stopWatchingAttachments = deps.networking.watchAttachments(() => void this.publish());
    this.tables.watch(PEER_TABLE, (e) => this.peersChanged.add(e.networkId));
    this.tables.watch(ENDPOINT_TABLE, (e) => {
      for (const change of endpointChanges(e, deps.log)) deps.networking.applyEndpoint(change.networkId, swarmEndpointChange(change));
    });
  }

  /** A plain container of this node joins an attachable swarm network: the network and its address there. */
  attach(target: string, containerId: string): Promise<NetworkAttachResponse> {
    return this.deps.source.attach({ target, containerId });
  }

  detach(containerId: string): Promise<void> {
    return this.deps.source.detach({ containerId });
  }

  start(): void {
    this.adopted = new Map(this.deps.runtime.list(TASK_ID_LABEL).map((c) => [c.labels[TASK_ID_LABEL]!, c.id]));
    this.polling = this.poll();
  }

  /** Stops asking; the containers run on (berthd stops, or the node changes role). */
  async close(): Promise<void> {
    this.stopWatchingAttachments();
    this.stop.abort();
    clearTimeout(this.retry);
    clearTimeout(this.republish);
    await this.polling;
    await this.flushing;
  }

  /** The node leaves the swarm: its tasks' containers go, and its routing mesh. */
  async removeAll(): Promise<void> {
    await this.close();
    await this.deps.networking.setIngress(undefined);
    await Promise.all([...this.runners.values()].map((r) => r.remove()));
    for (const id of this.adopted.values()) await this.deps.runtime.remove(id).catch(() => undefined);
    this.runners.clear();
  }

  private async poll(): Promise<void> {
    let known = '';
    while (!this.stop.signal.aborted) {
      try {
        const a = await this.deps.source.assignments(known, known === '' ? 0 : POLL_WAIT_MS, this.stop.signal);
        await this.apply(a);
        known = a.digest;
        void this.publish();
      } catch (err) {
        if (this.stop.signal.aborted) return;
        this.deps.log.debug({ err }, 'swarm: assignments not read');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  private async apply(a: Assignments): Promise<void> {
    if (a.dataPathPort !== this.dataPathPort) {
      // before any container of a task starts: its overlay endpoints are plumbed at its start
      await this.deps.networking.setDataPath({ address: this.deps.dataPathAddr, port: a.dataPathPort });
      this.dataPathPort = a.dataPathPort;
    }
    const networks = a.networks.map((n) => ({ id: n.id, name: n.name, ingress: n.ingress === true }));
    this.deps.networking.addNetworks(networks);
    this.deps.networking.setServicePorts(a.servicePorts);
    this.tables.apply(fromWire(a.tables));
    this.deps.networking.leftNetworks(networks);
    await this.updatePeers();
    this.ingress = a.ingress;
    const ingress = a.networks.find((n) => n.id === a.ingress?.networkId);
    // the routing mesh failing (logged and tried again there) holds no task back
    await this.deps.networking.setIngress(ingress === undefined ? undefined : { network: ingress, address: a.ingress!.address, ports: a.ingressPorts }).catch(() => undefined);
    // a new session holds none of the node's entries: all of them go again
    if (a.session !== this.session) this.published = '';
    this.session = a.session;
    const tasks = new Map(a.tasks.map((t) => [t.id, t]));
    for (const [id, runner] of this.runners) {
      if (tasks.has(id)) continue;
      this.runners.delete(id);
      void runner.remove();
    }
    // containers found at start whose task is no longer this node's
    for (const [taskId, containerId] of this.adopted) {
      if (tasks.has(taskId)) continue;
      void this.deps.runtime.remove(containerId).catch((err: unknown) => this.deps.log.warn({ err, containerId }, 'swarm: stale task container not removed'));
    }
    for (const t of tasks.values()) {
      const inputs = hasEnded(t.status.state) ? { secrets: [], configs: [], networks: [] } : this.inputsOrError(t, a);
      const runner = this.runners.get(t.id);
      if (runner !== undefined) {
        void runner.update(t, inputs);
        continue;
      }
      const created = new TaskRunner(t, inputs, this.adopted.get(t.id), { runtime: this.deps.runtime, nodeId: this.deps.nodeId, dataPathAddr: this.deps.dataPathAddr, log: this.deps.log, report: (id, status) => this.report(id, status), beforeStop: () => this.publish() });
      this.runners.set(t.id, created);
      void created.update(t, inputs);
    }
    this.adopted.clear();
  }

  /** Each network whose peer table changed gets its whole table, as the overlay takes it. */
  private async updatePeers(): Promise<void> {
    for (const networkId of [...this.peersChanged]) {
      this.peersChanged.delete(networkId);
      const peers = [...this.tables.getTableByNetwork(PEER_TABLE, networkId).values()].flatMap((bytes) => decodePeerRecord(bytes) ?? []);
      await this.deps.networking.setPeers(networkId, peers).catch((err: unknown) => this.deps.log.warn({ err, networkId }, 'swarm: overlay peers not programmed'));
    }
  }

  /** A template that cannot be expanded rejects the task, as dockerd's executor does. */
  private inputsOrError(t: TaskRecord, a: Assignments): TaskInputs {
    try {
      return this.inputsOf(t, a);
    } catch (err) {
      return { secrets: [], configs: [], networks: [], error: (err as Error).message };
    }
  }

  /**
   * The task's secrets at /run/secrets/<name> (or their absolute target), its configs at /<name>,
   * templates expanded; its networks, where it answers to its service's name and its aliases.
   */
  private inputsOf(t: TaskRecord, a: Assignments): TaskInputs {
    const c = t.spec.ContainerSpec;
    const context: TemplateContext = { task: t, nodeId: this.deps.nodeId, hostname: this.deps.hostname(), secrets: a.secrets, configs: a.configs };
    const deliver = (objects: readonly AssignedObject[], id: string, file: { Name: string; UID: string; GID: string; Mode: number } | undefined, dir: string): FileDelivery[] => {
      const o = objects.find((x) => x.id === id);
      if (o === undefined || file === undefined) return [];
      const raw = Buffer.from(o.data, 'base64');
      const data = o.templating?.name === 'golang' ? Buffer.from(expandTemplate(raw.toString('utf8'), context)) : raw;
      return [{ target: file.Name.startsWith('/') ? file.Name : `${dir}${file.Name}`, data, uid: file.UID || '0', gid: file.GID || '0', mode: file.Mode }];
    };
    return {
      secrets: (c?.Secrets ?? []).flatMap((r) => deliver(a.secrets, r.SecretID, r.File, '/run/secrets/')),
      configs: (c?.Configs ?? []).flatMap((r) => deliver(a.configs, r.ConfigID, r.File, '/')),
      // the ingress network first (it has no names), as swarmkit's allocator lists it
      networks: [...(t.networks ?? []).filter((n) => n.network.spec.ingress).map((n) => ({ Target: n.network.id, Aliases: undefined, ingress: true })), ...(t.spec.Networks ?? [])].map((n) => {
        const network = a.networks.find((x) => x.id === n.Target);
        if (network === undefined) throw new Error(`network ${n.Target} not found`);
        const address = t.networks?.find((a) => a.network.id === n.Target)?.addresses[0]?.split('/')[0];
        const aliases = 'ingress' in n ? [] : [t.serviceAnnotations.name, ...(n.Aliases ?? [])];
        return { network, aliases, ...(address !== undefined ? { address } : {}) };
      }),
    };
  }

  private report(taskId: string, status: TaskStatus): void {
    this.pending.set(taskId, status);
    this.kick();
    void this.publish();
  }

  /**
   * Publishes the node's endpoint records when they differ from what it published last: after
   * each state a task reaches, each new assignment (a task asked to stop is published disabled
   * first), and each poll, so that a node whose session was renewed publishes again.
   */
  private publish(): Promise<void> {
    this.publishing = this.publishing.then(async () => {
      const entries = [...[...this.runners.values()].flatMap((r) => r.endpointEntries()), ...this.sandboxEntries(), ...this.attachedEntries()].map((e) => ({ networkId: e.networkId, table: e.table, key: e.key, value: Buffer.from(e.value).toString('base64') }));
      const digest = JSON.stringify(entries);
      if (digest === this.published) return;
      try {
        await this.deps.source.publish(entries);
        this.published = digest;
      } catch (err) {
        this.deps.log.debug({ err }, 'swarm: endpoint records not published');
        if (this.stop.signal.aborted) return;
        clearTimeout(this.republish);
        this.republish = setTimeout(() => void this.publish(), RETRY_MS);
      }
    });
    return this.publishing;
  }

  /** The routing mesh's sandbox on the ingress network, which other nodes' tasks answer: its peer record (it has no endpoint record, as libnetwork's has none). */
  private sandboxEntries(): OwnedEntry[] {
    if (this.ingress === undefined) return [];
    const { networkId, address } = this.ingress;
    return [peerEntry(networkId, `ingress-sbox-${this.deps.nodeId}`, { address, mac: macFromIp(address.split('/')[0]!) }, this.deps.dataPathAddr)];
  }

  /**
   * The records of this node's plain containers on attachable swarm networks, as libnetwork fills
   * a container's: its name and aliases (the short ID among them), no service, no VIP.
   */
  private attachedEntries(): OwnedEntry[] {
    return this.deps.networking.attachedEndpoints().flatMap((e) => {
      const record = encodeEndpointRecord({ name: e.name, endpointIp: e.address.split('/')[0]!, taskAliases: e.aliases });
      return [{ networkId: e.networkId, table: ENDPOINT_TABLE, key: e.endpointId, value: record }, peerEntry(e.networkId, e.endpointId, e, this.deps.dataPathAddr)];
    });
  }

  private kick(): void {
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
  }

  /** Sends what is pending; what a manager did not take waits for the next try. */
  private async flush(): Promise<void> {
    while (this.pending.size > 0) {
      const reports = [...this.pending].map(([taskId, status]) => ({ taskId, status }));
      this.pending.clear();
      try {
        await this.deps.source.report(reports);
      } catch (err) {
        for (const r of reports) if (!this.pending.has(r.taskId)) this.pending.set(r.taskId, r.status);
        this.deps.log.debug({ err }, 'swarm: task status not sent');
        if (this.stop.signal.aborted) return;
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.kick(), RETRY_MS);
        return;
      }
    }
  }
}

function fromWire(tables: Assignments['tables']): TablesSnapshot {
  const out: TablesSnapshot = {};
  for (const [networkId, byTable] of Object.entries(tables ?? {})) {
    out[networkId] = {};
    for (const [table, entries] of Object.entries(byTable) as Array<[TableName, WireEntry[]]>) out[networkId][table] = entries.map((e) => ({ key: e.key, value: Buffer.from(e.value, 'base64'), owner: e.owner ?? '' }));
  }
  return out;
}
