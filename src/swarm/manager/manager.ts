// A manager: the cluster store, the leader election, the dispatcher of nodes' sessions, the
// cluster port, and on the leader the loops that only one manager may run (node liveness). The
// manager is a node of its swarm too: it keeps its own session as any node does, directly.
import type { Logger } from 'pino';
import { EngineError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { CertificateIssuer, type NodeIdentity } from '../ca/swarm-ca.js';
import { caDigest, parseJoinToken, sameSecret } from '../ca/join-token.js';
import { ClusterState } from '../cluster/cluster-state.js';
import type { NodeRecord } from '../cluster/records.js';
import { heartbeatPeriodMs, nodeCertExpiryMs } from '../cluster/swarm-spec.js';
import { newSwarmId } from '../ids.js';
import type { LocalNodeState, ManagerAddress, NodeCertificates } from '../local-node.js';
import type { ClusterStore, Watch } from '../store/cluster-store.js';
import { ClusterServer } from '../transport/cluster-server.js';
import { splitHostPort } from '../transport/cluster-client.js';
import type { HeartbeatRequest, HeartbeatResponse, JoinRequest, JoinResponse, RenewRequest, RenewResponse } from '../transport/cluster-protocol.js';
import { Dispatcher } from './dispatcher.js';
import { Leadership } from './leadership.js';
import { NodeLiveness } from './node-liveness.js';
import { publishNodeEvents } from './node-events.js';

export interface ManagerDeps {
  store: ClusterStore;
  local: LocalNodeState;
  certs: NodeCertificates;
  /** a private folder for the CA's files while it signs */
  workDir: string;
  events: EventBus;
  log: Logger;
}

export class Manager {
  readonly state: ClusterState;
  private readonly leadership: Leadership;
  private readonly dispatcher: Dispatcher;
  private readonly liveness: NodeLiveness;
  private server: ClusterServer | undefined;
  private nodeEvents: Watch | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private periodMs = 5000;
  private issuer: { pem: string; issuer: CertificateIssuer } | undefined;

  constructor(private readonly deps: ManagerDeps) {
    this.state = new ClusterState(deps.store);
    this.dispatcher = new Dispatcher(this.state, deps.local.nodeId, () => this.periodMs);
    this.liveness = new NodeLiveness(this.state, () => this.periodMs, deps.log);
    this.leadership = new Leadership(this.state, deps.local.nodeId, deps.log, (leading) => {
      if (leading) this.liveness.start();
      else void this.liveness.stop();
    });
  }

  get nodeId(): string {
    return this.deps.local.nodeId;
  }

  get isLeader(): boolean {
    return this.leadership.isLeader;
  }

  async start(): Promise<void> {
    const { local, certs, log } = this.deps;
    this.periodMs = heartbeatPeriodMs((await this.state.cluster()).value.spec);
    this.nodeEvents = publishNodeEvents(this.state, this.deps.events);
    const { host, port } = splitHostPort(local.listenAddr);
    this.server = await ClusterServer.listen(host, port, { ...certs, clusterId: local.clusterId }, this, log);
    await this.leadership.start();
    await this.beat();
    this.heartbeatTimer = setInterval(() => void this.beat(), this.periodMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    this.nodeEvents?.cancel();
    await this.leadership.stop();
    await this.liveness.stop();
    await this.server?.close();
    await this.deps.store.close();
  }

  /** The managers' cluster addresses, for nodes to fail over between. */
  async managers(): Promise<ManagerAddress[]> {
    return (await this.state.nodes()).filter((n) => n.value.role === 'manager' && n.value.managerAddr !== undefined).map((n) => ({ nodeId: n.value.id, addr: n.value.managerAddr! }));
  }

  /** Ends a node's session at once (a worker that left, a node removed). */
  endSession(nodeId: string): Promise<void> {
    return this.dispatcher.end(nodeId);
  }

  // --- the cluster port's calls -------------------------------------------------------------

  rootCaPem(): string {
    return this.deps.certs.rootCaPem;
  }

  async join(req: JoinRequest, remoteHost: string): Promise<JoinResponse> {
    const cluster = (await this.state.cluster()).value;
    const role = this.roleOfToken(typeof req?.token === 'string' ? req.token : '', cluster.rootCa.certPem, cluster.joinSecrets);
    if (typeof req.csrPem !== 'string' || typeof req.description !== 'object' || req.description === null) throw new EngineError('invalidParameter', 'rpc error: code = InvalidArgument desc = malformed join request');
    const advertiseHost = req.advertiseAddr ? splitHostPort(req.advertiseAddr).host : remoteHost;
    const now = formatRfc3339Nano(nowNanos());
    const nodeId = newSwarmId();
    const node: NodeRecord = {
      id: nodeId,
      createdAt: now,
      updatedAt: now,
      spec: { name: '', labels: {}, role, availability: 'active' },
      role,
      description: req.description,
      status: { state: 'unknown', message: '', addr: advertiseHost },
      ...(role === 'manager' ? { managerAddr: req.advertiseAddr || `${remoteHost}:${splitHostPort(req.listenAddr).port}` } : {}),
    };
    const certPem = await this.issue(req.csrPem, { nodeId, role, clusterId: cluster.id }, nodeCertExpiryMs(cluster.spec));
    await this.state.putNode(0, node);
    this.deps.log.info({ nodeId, role, addr: advertiseHost }, 'swarm: node joined');
    return { nodeId, clusterId: cluster.id, role, certPem, rootCaPem: cluster.rootCa.certPem, observedAddr: remoteHost, managers: await this.managers(), heartbeatPeriodMs: this.periodMs };
  }

  async heartbeat(caller: NodeIdentity, req: HeartbeatRequest): Promise<HeartbeatResponse> {
    const node = await this.state.node(caller.nodeId);
    if (node === undefined) return { heartbeatPeriodMs: this.periodMs, managers: [], role: caller.role, removed: true };
    await this.dispatcher.heartbeat(caller.nodeId);
    const addr = req?.advertiseAddr ? splitHostPort(req.advertiseAddr).host : node.value.status.addr;
    if (addr !== node.value.status.addr) await this.state.putNode(node.version, { ...node.value, status: { ...node.value.status, addr } }).catch(() => undefined);
    return { heartbeatPeriodMs: this.periodMs, managers: await this.managers(), role: node.value.role, removed: false };
  }

  async renew(caller: NodeIdentity, req: RenewRequest): Promise<RenewResponse> {
    const node = await this.state.node(caller.nodeId);
    if (node === undefined) throw new EngineError('notFound', `node ${caller.nodeId} not found`);
    const cluster = (await this.state.cluster()).value;
    const role = node.value.role;
    return { certPem: await this.issue(req.csrPem, { nodeId: caller.nodeId, role, clusterId: cluster.id }, nodeCertExpiryMs(cluster.spec)), role };
  }

  async leave(caller: NodeIdentity): Promise<void> {
    await this.dispatcher.end(caller.nodeId);
  }

  addMember(): Promise<unknown> {
    throw new EngineError('notImplemented', 'adding managers is not supported yet');
  }

  // ---------------------------------------------------------------------------------------------

  /** The role a token gives, checked as swarmkit checks it (its CA digest, then its secret). */
  private roleOfToken(token: string, rootCaPem: string, secrets: { worker: string; manager: string }): 'worker' | 'manager' {
    const invalid = new EngineError('invalidParameter', 'rpc error: code = InvalidArgument desc = A valid join token is necessary to join this cluster');
    let parsed;
    try {
      parsed = parseJoinToken(token);
    } catch {
      throw invalid;
    }
    if (parsed.caDigest !== caDigest(rootCaPem)) throw invalid;
    if (sameSecret(parsed.secret, secrets.worker)) return 'worker';
    if (sameSecret(parsed.secret, secrets.manager)) return 'manager';
    throw invalid;
  }

  private async issue(csrPem: string, identity: NodeIdentity, expiryMs: number): Promise<string> {
    const cluster = (await this.state.cluster()).value;
    if (this.issuer?.pem !== cluster.rootCa.certPem) this.issuer = { pem: cluster.rootCa.certPem, issuer: new CertificateIssuer(cluster.rootCa, this.deps.workDir) };
    return this.issuer.issuer.issue(csrPem, identity, expiryMs);
  }

  /** This manager's own heartbeat: its session, as a node's. */
  private async beat(): Promise<void> {
    await this.dispatcher.heartbeat(this.nodeId).catch((err: unknown) => this.deps.log.debug({ err }, 'swarm: own heartbeat failed'));
  }
}
