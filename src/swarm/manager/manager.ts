// A manager: the dispatcher of nodes' sessions and the cluster port, over the cluster store; the
// leader election; on the leader the loops only one manager may run (node liveness, roles). The
// manager is a node of its swarm too: it keeps its own session as any node does, directly.
//
// The store changes once in a swarm's life: a single manager's LocalStore moves to an etcd
// member of its own when a second manager asks to be added (addMember). The cluster port goes on
// serving through the move; the loops stop, and start again over the new store.
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { EngineError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { CertificateIssuer, newCertificateRequest, type NodeIdentity } from '../ca/swarm-ca.js';
import { renewalDue } from '../ca/renewal.js';
import { caDigest, parseJoinToken, sameSecret } from '../ca/join-token.js';
import { ClusterState, MANAGER_NOT_READY_MESSAGE } from '../cluster/cluster-state.js';
import type { NodeRecord } from '../cluster/records.js';
import { decodeNodeDescription } from '../cluster/node-description.js';
import { heartbeatPeriodMs, nodeCertExpiryMs } from '../cluster/swarm-spec.js';
import { newSwarmId } from '../ids.js';
import type { LocalNodeState, ManagerAddress, NodeCertificates } from '../local-node.js';
import type { ClusterStore, Watch } from '../store/cluster-store.js';
import type { EtcdMembership } from '../store/etcd-membership.js';
import { ClusterServer, type NodeHandlers } from '../transport/cluster-server.js';
import { streamTaskLogs } from '../transport/node-client.js';
import type { TaskLogEntry, TaskLogRead } from '../agent/task-runtime.js';
import { splitHostPort } from '../transport/cluster-client.js';
import type { AddMemberRequest, AddMemberResponse, Assignments, AssignmentsRequest, HeartbeatRequest, HeartbeatResponse, JoinRequest, JoinResponse, NetworkAttachRequest, NetworkAttachResponse, NetworkDetachRequest, RenewRequest, RenewResponse, TableEntriesRequest, TaskStatusRequest } from '../transport/cluster-protocol.js';
import { attachNetwork, detachNetwork } from './network-attachments.js';
import { ServiceState } from '../services/service-state.js';
import type { TaskRecord } from '../services/service-records.js';
import { orchestrator } from '../orchestrator/orchestrator.js';
import { publishServiceEvents } from '../services/service-events.js';
import { applyTableEntries, applyTaskStatus, waitForAssignments } from './task-dispatch.js';
import { Dispatcher } from './dispatcher.js';
import { Leadership } from './leadership.js';
import { nodeLiveness } from './node-liveness.js';
import { publishNodeEvents } from './node-events.js';
import { NETWORKS } from '../networks/network-records.js';
import { publishObjectEvents } from '../objects/object-events.js';
import { prefixOf } from '../objects/secret-records.js';
import { roleReconciler } from './role-reconciler.js';
import type { ReconcileLoop } from './reconcile-loop.js';
import { unlockKeyOf } from './cluster-control.js';
import { decryptSecret } from '../ca/sealing.js';

/** How soon a manager's own heartbeat that failed is first tried again. */
const FAILED_BEAT_RETRY_MS = 250;

/** The longest an assignments call waits for a change (a node asks again at once). */
const MAX_ASSIGNMENTS_WAIT_MS = 30_000;

/** How long a check that the store has a leader holds: the no-leader answer comes at once, not after etcd's 7 s. */
const LEADER_CHECK_TTL_MS = 1000;

export interface ManagerEtcd {
  /** the managers' own members; none when the store is an etcd of the operator's (the swarm's members are none of berth's business then) */
  membership?: EtcdMembership;
  /** whether the member berthd talks to knows a leader now (etcd's status, which answers at once) */
  leader(): Promise<boolean>;
  /** what the store's revisions read with (store-migration.ts), for the members added */
  revisionOffset: number;
  close(): void;
}

export interface ManagerDeps {
  store: ClusterStore;
  /** the manager's etcd, when its store is one */
  etcd?: ManagerEtcd;
  local: LocalNodeState;
  certs: NodeCertificates;
  /** a private folder for the CA's files while it signs */
  workDir: string;
  events: EventBus;
  log: Logger;
  /** moves the single manager's store into an etcd member of its own (a second manager comes) */
  moveToEtcd: () => Promise<{ store: ClusterStore; etcd: ManagerEtcd }>;
  /** the swarm made this manager a worker: the node stops being one */
  demoted: () => void;
  /** what this node serves managers (its tasks' logs): on the manager's port, and to the manager itself directly */
  node: NodeHandlers;
  /** the managers' data key (ca/sealing.ts) */
  dek: Buffer;
  /** what the unlock key is now ('' without autolock), each beat: the node seals its keys with it */
  unlockKeyIs: (unlockKey: string) => Promise<void>;
  /** the manager renewed its certificate: the node keeps it */
  renewed: (certs: NodeCertificates) => Promise<void>;
}

/** What runs over one store. */
interface Loops {
  state: ClusterState;
  services: ServiceState;
  dispatcher: Dispatcher;
  leadership: Leadership;
  liveness: ReconcileLoop;
  roles: ReconcileLoop;
  orchestrator: ReconcileLoop;
  watches: Watch[];
  heartbeat: NodeJS.Timeout | undefined;
}

export class Manager {
  private loops: Loops | undefined;
  private store: ClusterStore;
  private etcd: ManagerEtcd | undefined;
  private server: ClusterServer | undefined;
  private periodMs = 5000;
  private issuer: { pem: string; issuer: CertificateIssuer } | undefined;
  /** one member added at a time: etcd refuses a second while the first has not started */
  private adding: Promise<unknown> = Promise.resolve();
  private leaderCheck: { at: number; ok: Promise<boolean> } | undefined;

  constructor(private readonly deps: ManagerDeps) {
    this.store = deps.store;
    this.etcd = deps.etcd;
  }

  get nodeId(): string {
    return this.deps.local.nodeId;
  }

  get state(): ClusterState {
    if (this.loops === undefined) throw new EngineError('unavailable', MANAGER_NOT_READY_MESSAGE);
    return this.loops.state;
  }

  /** The services and tasks in the store. */
  get services(): ServiceState {
    if (this.loops === undefined) throw new EngineError('unavailable', MANAGER_NOT_READY_MESSAGE);
    return this.loops.services;
  }

  async start(): Promise<void> {
    const { local, certs, log } = this.deps;
    const { host, port } = splitHostPort(local.listenAddr);
    this.server = await ClusterServer.listen(host, port, { ...certs, clusterId: local.clusterId }, { node: this.deps.node, manager: this }, log);
    await this.startLoops();
  }

  async stop(): Promise<void> {
    await this.stopLoops();
    await this.server?.close();
    this.etcd?.close();
    await this.store.close();
  }

  /**
   * Resolves once the store answers (a new member promoted, a forced cluster's election over), or
   * after `timeoutMs` whatever: what a join or an init waits for before it answers, so that the
   * CLI's next calls find a manager that serves.
   */
  async serving(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      try {
        await this.state.cluster();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** The managers' cluster addresses, for nodes to fail over between. */
  async managers(): Promise<ManagerAddress[]> {
    return (await this.state.nodes()).filter((n) => n.value.role === 'manager' && n.value.managerAddr !== undefined).map((n) => ({ nodeId: n.value.id, addr: n.value.managerAddr! }));
  }

  /** Ends a node's session at once (a worker that left, a node removed). */
  endSession(nodeId: string): Promise<void> {
    return this.state.call(() => this.loops!.dispatcher.end(nodeId));
  }

  /** The managers' data key. */
  get dataKey(): Buffer {
    return this.deps.dek;
  }

  /** The etcd members, for quorum arithmetic; undefined on a single manager's LocalStore. */
  membership(): EtcdMembership | undefined {
    return this.etcd?.membership;
  }

  /** A task's log from its node: this node's directly, another's over that node's port. */
  async *taskLogs(task: TaskRecord, read: TaskLogRead, signal: AbortSignal): AsyncGenerator<TaskLogEntry> {
    if (task.nodeId === this.nodeId) {
      yield* this.deps.node.taskLogs(task.id, read, signal);
      return;
    }
    const addr = (await this.state.node(task.nodeId))?.value.advertiseAddr;
    if (addr === undefined) throw new Error(`node ${task.nodeId} is not available`);
    yield* streamTaskLogs(addr, task.nodeId, task.id, read, this.deps.certs, signal);
  }

  // --- the cluster port's calls -------------------------------------------------------------

  rootCaPem(): string {
    return this.deps.certs.rootCaPem;
  }

  async join(body: JoinRequest | undefined, remoteHost: string): Promise<JoinResponse> {
    const req = (typeof body === 'object' && body !== null ? body : {}) as Partial<JoinRequest>;
    const state = this.state;
    const cluster = (await state.cluster()).value;
    const role = this.roleOfToken(typeof req.token === 'string' ? req.token : '', cluster.rootCa.certPem, cluster.joinSecrets);
    if (typeof req.csrPem !== 'string') throw new EngineError('invalidParameter', 'rpc error: code = InvalidArgument desc = a certificate request is required');
    const advertiseAddr = typeof req.advertiseAddr === 'string' ? req.advertiseAddr : '';
    const listenAddr = typeof req.listenAddr === 'string' && req.listenAddr !== '' ? req.listenAddr : '0.0.0.0:2377';
    const advertiseHost = advertiseAddr !== '' ? splitHostPort(advertiseAddr).host : remoteHost;
    if (isIP(advertiseHost) === 0) throw new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = invalid advertise address ${JSON.stringify(advertiseAddr)}`);
    const now = formatRfc3339Nano(nowNanos());
    const nodeId = newSwarmId();
    const nodeAddr = advertiseAddr || `${remoteHost}:${splitHostPort(listenAddr).port}`;
    const node: NodeRecord = {
      id: nodeId,
      createdAt: now,
      updatedAt: now,
      spec: { name: '', labels: {}, role, availability: 'active' },
      role,
      description: decodeNodeDescription(req.description),
      status: { state: 'unknown', message: '', addr: advertiseHost },
      ...(role === 'manager' ? { managerAddr: nodeAddr } : {}),
      advertiseAddr: nodeAddr,
    };
    const certPem = await this.issue(req.csrPem, { nodeId, role, clusterId: cluster.id }, nodeCertExpiryMs(cluster.spec), [advertiseHost]);
    await state.putNode(0, node);
    this.deps.log.info({ nodeId, role, addr: advertiseHost }, 'swarm: node joined');
    return { nodeId, clusterId: cluster.id, role, certPem, rootCaPem: cluster.rootCa.certPem, observedAddr: remoteHost, managers: await this.managers(), heartbeatPeriodMs: this.periodMs };
  }

  async heartbeat(caller: NodeIdentity, req: HeartbeatRequest): Promise<HeartbeatResponse> {
    const state = this.state;
    const node = await state.node(caller.nodeId);
    if (node === undefined) return { heartbeatPeriodMs: this.periodMs, managers: [], role: caller.role, removed: true };
    await state.call(() => this.loops!.dispatcher.heartbeat(caller.nodeId));
    const said = typeof req?.advertiseAddr === 'string' && isIP(splitHostPort(req.advertiseAddr).host) !== 0 ? req.advertiseAddr : undefined;
    const addr = said === undefined ? node.value.status.addr : splitHostPort(said).host;
    const advertiseAddr = said ?? node.value.advertiseAddr;
    if (addr !== node.value.status.addr || advertiseAddr !== node.value.advertiseAddr) await state.putNode(node.version, { ...node.value, status: { ...node.value.status, addr }, advertiseAddr }).catch(() => undefined);
    // the role asked for: a promotion reaches the node here
    return { heartbeatPeriodMs: this.periodMs, managers: await this.managers(), role: node.value.spec.role, removed: false };
  }

  async renew(caller: NodeIdentity, req: RenewRequest): Promise<RenewResponse> {
    const node = await this.state.node(caller.nodeId);
    if (node === undefined) throw new EngineError('notFound', `node ${caller.nodeId} not found`);
    const cluster = (await this.state.cluster()).value;
    const role = node.value.spec.role;
    return { certPem: await this.issue(req.csrPem, { nodeId: caller.nodeId, role, clusterId: cluster.id }, nodeCertExpiryMs(cluster.spec), [node.value.status.addr]), role };
  }

  async leave(caller: NodeIdentity): Promise<void> {
    await this.state.call(() => this.loops!.dispatcher.end(caller.nodeId));
  }

  /** A node's tasks, once they differ from what it has. */
  assignments(nodeId: string, req: AssignmentsRequest, signal: AbortSignal): Promise<Assignments> {
    const waitMs = Math.min(Math.max(0, Number(req?.waitMs) || 0), MAX_ASSIGNMENTS_WAIT_MS);
    return waitForAssignments(this.services, nodeId, this.deps.dek, typeof req?.known === 'string' ? req.known : '', waitMs, signal);
  }

  /** What a node's tasks did. */
  taskStatus(nodeId: string, req: TaskStatusRequest): Promise<void> {
    return applyTaskStatus(this.services, nodeId, Array.isArray(req?.reports) ? req.reports : []);
  }

  /** A node's whole set of network table entries. */
  tableEntries(nodeId: string, req: TableEntriesRequest): Promise<void> {
    return applyTableEntries(this.services, nodeId, req);
  }

  /** An address on an attachable network for a plain container of the node. */
  attachNetwork(nodeId: string, req: NetworkAttachRequest): Promise<NetworkAttachResponse> {
    return attachNetwork(this.services, nodeId, req);
  }

  detachNetwork(nodeId: string, req: NetworkDetachRequest): Promise<void> {
    return detachNetwork(this.state, nodeId, req);
  }

  /**
   * Adds an etcd member for a manager that joined or was promoted (its certificate says so),
   * moving this single manager's store into etcd first when it has none.
   */
  addMember(caller: NodeIdentity, req: AddMemberRequest): Promise<AddMemberResponse> {
    const run = this.adding.then(async () => {
      if (typeof req?.peerUrl !== 'string' || !/^https:\/\/[^/]+:\d+$/.test(req.peerUrl)) throw new EngineError('invalidParameter', 'a peer URL https://IP:PORT is required');
      const asked = await this.state.node(caller.nodeId);
      if (asked === undefined) throw new EngineError('notFound', `node ${caller.nodeId} not found`);
      if (asked.value.spec.role !== 'manager') throw new EngineError('forbidden', `node ${caller.nodeId} is not a manager`);
      if (this.etcd === undefined) await this.moveToEtcd();
      const dataKeys = { revisionOffset: this.etcd!.revisionOffset, dataKey: this.deps.dek.toString('base64'), unlockKey: await unlockKeyOf(this.state, this.deps.dek) };
      const membership = this.etcd!.membership;
      // an operator's etcd: the new manager uses it as it is
      if (membership === undefined) return { initialCluster: '', ...dataKeys };
      // read again: a move gives every key a new revision
      const node = (await this.state.node(caller.nodeId))!;
      // the record first: once a second member is added, the store waits for it to start
      await this.state.putNode(node.version, { ...node.value, etcdPeerUrl: req.peerUrl });
      const known = (await membership.list()).find((m) => m.name === caller.nodeId || m.peerUrls.includes(req.peerUrl));
      if (known !== undefined) await membership.remove(known.id);
      const { id, initialCluster } = await membership.add(caller.nodeId, req.peerUrl);
      this.deps.log.info({ nodeId: caller.nodeId, peerUrl: req.peerUrl }, 'swarm: etcd member added');
      // promoted as soon as it has started and caught up (etcd refuses until then, and promote()
      // asks again for a while); the leader's role pass does it otherwise, within a period
      void membership.promote(id).then(
        () => this.deps.log.info({ nodeId: caller.nodeId }, 'swarm: etcd member promoted'),
        (err: unknown) => this.deps.log.debug({ err }, 'swarm: etcd member not promoted yet'),
      );
      return { initialCluster, ...dataKeys };
    });
    this.adding = run.catch(() => undefined);
    return run;
  }

  // ---------------------------------------------------------------------------------------------

  /** The move: no write to the old store may come after the copy, or it would be lost. */
  private async moveToEtcd(): Promise<void> {
    const old = this.loops?.state;
    await this.stopLoops();
    await old?.freeze();
    let moved;
    try {
      moved = await this.deps.moveToEtcd();
    } catch (err) {
      await this.startLoops();
      throw err;
    }
    const oldStore = this.store;
    this.store = moved.store;
    this.etcd = moved.etcd;
    await oldStore.close();
    await this.startLoops();
  }

  private async startLoops(): Promise<void> {
    const { local, log } = this.deps;
    const etcd = this.etcd;
    const state = new ClusterState(this.store, etcd === undefined ? undefined : () => this.hasLeader(etcd));
    const services = new ServiceState(state);
    try {
      this.periodMs = heartbeatPeriodMs((await state.cluster()).value.spec);
    } catch (err) {
      log.warn({ err }, 'swarm: the cluster store does not answer yet');
    }
    const dispatcher = new Dispatcher(state, local.nodeId, () => this.periodMs);
    const liveness = nodeLiveness(state, () => this.periodMs, log);
    const roles = roleReconciler(state, () => this.etcd?.membership, () => this.periodMs, log);
    const orchestration = orchestrator(services, () => this.periodMs, log);
    const leaderLoops = [liveness, roles, orchestration];
    const leadership = new Leadership(state, local.nodeId, log, (leading) => {
      for (const loop of leaderLoops) {
        if (leading) loop.start();
        else void loop.stop();
      }
    });
    // after a failed heartbeat the next comes sooner, then less soon (a new manager's member is
    // promoted within a moment; a manager without a quorum waits longer)
    let retryMs: number | undefined;
    const beat = async () => {
      retryMs = await dispatcher.heartbeat(local.nodeId).then(
        () => undefined,
        (err: unknown) => {
          log.debug({ err }, 'swarm: own heartbeat failed');
          return Math.min((retryMs ?? FAILED_BEAT_RETRY_MS / 2) * 2, this.periodMs);
        },
      );
      // each beat: a watch set up while the member was a learner, or resumed after a gap, misses what came meanwhile
      await this.checkOwnRecord(state);
      try {
        const cluster = (await state.cluster()).value;
        this.periodMs = heartbeatPeriodMs(cluster.spec);
        await this.deps.unlockKeyIs(cluster.encryptedUnlockKey === '' ? '' : decryptSecret(this.deps.dek, cluster.encryptedUnlockKey));
        await this.renewIfDue();
      } catch (err) {
        log.debug({ err }, 'swarm: the swarm not read this beat');
      }
    };
    const watches = [publishNodeEvents(state, this.deps.events), publishObjectEvents(state, this.deps.events, 'secret', prefixOf('secret')), publishObjectEvents(state, this.deps.events, 'config', prefixOf('config')), publishObjectEvents(state, this.deps.events, 'network', NETWORKS), publishServiceEvents(state, this.deps.events), this.watchOwnRole(state)];
    const loops: Loops = { state, services, dispatcher, leadership, liveness, roles, orchestrator: orchestration, watches, heartbeat: undefined };
    // each beat after the last, at the period the spec says now
    const next = () => {
      loops.heartbeat = setTimeout(() => void beat().finally(() => this.loops === loops && next()), retryMs ?? this.periodMs);
    };
    this.loops = loops;
    await leadership.start();
    await beat();
    next();
  }

  /** A manager's own certificate, renewed by itself (it holds the CA) once half its life has passed. */
  private async renewIfDue(): Promise<void> {
    if (!renewalDue(this.deps.certs.certPem)) return;
    const cluster = (await this.state.cluster()).value;
    const { keyPem, csrPem } = await newCertificateRequest(this.deps.workDir);
    const certPem = await this.issue(csrPem, { nodeId: this.nodeId, role: 'manager', clusterId: cluster.id }, nodeCertExpiryMs(cluster.spec), [splitHostPort(this.deps.local.advertiseAddr).host]);
    const certs = { ...this.deps.certs, certPem, keyPem };
    await this.deps.renewed(certs);
    this.deps.certs = certs;
    this.server?.updateCredentials({ ...certs, clusterId: this.deps.local.clusterId });
    this.deps.log.info('swarm: manager certificate renewed');
  }

  private async stopLoops(): Promise<void> {
    const loops = this.loops;
    if (loops === undefined) return;
    this.loops = undefined;
    clearTimeout(loops.heartbeat);
    for (const w of loops.watches) w.cancel();
    await loops.leadership.stop();
    await loops.liveness.stop();
    await loops.roles.stop();
    await loops.orchestrator.stop();
  }

  /**
   * The node's own record: a promoted node's says it manages, at this address, once its manager
   * runs (a new member serves the store once promoted: until then, again each beat); a demoted
   * one's tells the node to stop managing.
   */
  private async checkOwnRecord(state: ClusterState): Promise<void> {
    try {
      const mine = await state.node(this.nodeId);
      if (mine === undefined) return;
      if (mine.value.role === 'worker' && mine.value.spec.role === 'worker') return this.deps.demoted();
      const addr = this.deps.local.advertiseAddr;
      if (mine.value.role === 'manager' && mine.value.managerAddr === addr && mine.value.advertiseAddr === addr) return;
      await state.putNode(mine.version, { ...mine.value, role: 'manager', managerAddr: addr, advertiseAddr: addr, updatedAt: formatRfc3339Nano(nowNanos()) });
    } catch (err) {
      this.deps.log.debug({ err }, 'swarm: own record not read');
    }
  }

  /** Tells the node when the swarm demotes it (the leader sets its role). */
  private watchOwnRole(state: ClusterState): Watch {
    return state.watchNodes(0, (now) => {
      if (now?.id === this.nodeId && now.role === 'worker' && now.spec.role === 'worker') this.deps.demoted();
    });
  }

  private hasLeader(etcd: ManagerEtcd): Promise<boolean> {
    const now = Date.now();
    if (this.leaderCheck === undefined || now - this.leaderCheck.at > LEADER_CHECK_TTL_MS) {
      this.leaderCheck = { at: now, ok: etcd.leader().catch(() => false) };
    }
    return this.leaderCheck.ok;
  }

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

  private async issue(csrPem: string, identity: NodeIdentity, expiryMs: number, ips: string[]): Promise<string> {
    const cluster = (await this.state.cluster()).value;
    if (this.issuer?.pem !== cluster.rootCa.certPem) this.issuer = { pem: cluster.rootCa.certPem, issuer: new CertificateIssuer({ certPem: cluster.rootCa.certPem, keyPem: decryptSecret(this.deps.dek, cluster.rootCa.encryptedKey) }, this.deps.workDir) };
    return this.issuer.issuer.issue(csrPem, identity, expiryMs, ips);
  }
}
