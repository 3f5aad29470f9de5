// This node's part in a swarm: none, pending a join, a worker's, a manager's or a locked manager's,
// and the moves between them (init, join, leave, a restart that resumes where the node was,
// promotion, demotion, unlock, --force-new-cluster). The swarm's own calls go to the manager of
// this node; on any other node they answer dockerd's 503s. Every node serves managers its tasks'
// logs on its listen address: a manager on its cluster port, a worker on a port of its own there.
import { rm } from 'node:fs/promises';
import os from 'node:os';
import type { Logger } from 'pino';
import { EngineError, NOT_SWARM_MANAGER_MESSAGE, invalidParameter } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { FilterArgs } from '../lib/filters.js';
import { formatRfc3339Nano, nowNanos } from '../lib/timestamp.js';
import type { EtcdMember } from '../runtime/etcd-member.js';
import { remoteAddress, resolveAddresses } from './addresses.js';
import { Agent } from './agent/agent.js';
import { TaskAgent, type AssignmentSource } from './agent/task-agent.js';
import { NetworkTables } from './endpoints/network-tables.js';
import { taskLogs } from './agent/task-logs.js';
import type { TaskNetworking, TaskRuntime } from './agent/task-runtime.js';
import { caDigest, newJoinTokenSecret, parseJoinToken } from './ca/join-token.js';
import { encryptSecret, isSealed, newDataKey, seal, unlockKeyBytes, unseal } from './ca/sealing.js';
import { CertificateIssuer, createRootCa, newCertificateRequest, tlsInfoOf, type NodeRole, type RootCa } from './ca/swarm-ca.js';
import { ClusterState } from './cluster/cluster-state.js';
import type { ClusterRecord, NodeDescription, NodeRecord } from './cluster/records.js';
import { initSpec, nodeCertExpiryMs } from './cluster/swarm-spec.js';
import { newSwarmId } from './ids.js';
import { LocalNode, type LocalNodeState, type NodeCertificates } from './local-node.js';
import { clientUrlOf, forceNewEtcdCluster, foundingSettings, openExternalEtcd, openManagerEtcd, peerUrlOf, type EtcdPorts, type ExternalEtcd } from './manager-etcd.js';
import { newUnlockKey, type SwarmView } from './manager/cluster-control.js';
import { Manager, type ManagerEtcd } from './manager/manager.js';
import { listNodes } from './manager/node-control.js';
import type { ClusterStore } from './store/cluster-store.js';
import { LocalStore } from './store/local-store.js';
import type { NetworkRecord } from '../network/network-record.js';
import { createNetwork, INGRESS_REQUEST } from './networks/network-control.js';
import { OffsetStore } from './store/offset-store.js';
import { moveToEtcd } from './store/store-migration.js';
import { callManager, fetchRootCa, splitHostPort } from './transport/cluster-client.js';
import { CLUSTER_PATHS, type AddMemberResponse, type Assignments, type JoinResponse, type NetworkAttachResponse, type RenewResponse } from './transport/cluster-protocol.js';
import { ClusterServer, type NodeHandlers } from './transport/cluster-server.js';

const WORKER_NOT_MANAGER_MESSAGE = "This node is not a swarm manager. Worker nodes can't be used to view or modify cluster state. Please run this command on a manager node or promote the current node to a manager.";
const ALREADY_IN_SWARM_MESSAGE = 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';
const NOT_IN_SWARM_MESSAGE = 'This node is not part of a swarm';
const LOCKED_MESSAGE = 'Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.';
const JOIN_TIMEOUT_MESSAGE = 'Timeout was reached before node joined. The attempt to join the swarm will continue in the background. Use the "docker info" command to see the current swarm status of your node.';
/** how long a join call waits before it answers and goes on in the background (dockerd's swarmConnectTimeout) */
const JOIN_WAIT_MS = 20_000;
const JOIN_RETRY_MS = 2000;
/** how long a new manager's join or a forced cluster's init waits for the store to answer */
const SERVING_WAIT_MS = 15_000;
const DEFAULT_DATA_PATH_PORT = 4789;

export type LocalNodeStateName = 'inactive' | 'pending' | 'active' | 'error' | 'locked';

export interface SwarmInfo {
  nodeId: string;
  nodeAddr: string;
  localNodeState: LocalNodeStateName;
  controlAvailable: boolean;
  error: string;
  remoteManagers: Array<{ nodeId: string; addr: string }> | null;
  nodes?: number;
  managers?: number;
  /** the swarm, on a manager; null when it could not be read */
  cluster?: Pick<SwarmView, 'cluster' | 'tlsInfo'> | null;
}

export interface SwarmServiceDeps {
  dataRoot: string;
  /** where a manager's etcd member finds its key while it runs (a tmpfs) */
  execRoot: string;
  events: EventBus;
  log: Logger;
  describe: () => Promise<NodeDescription>;
  /** the ports of a manager's etcd member */
  etcdPorts: EtcdPorts;
  /** an etcd of the operator's that managers keep the swarm in, instead of members of their own */
  externalEtcd?: ExternalEtcd;
  /** what runs this node's tasks */
  runtime: TaskRuntime;
  /** the node's networking, for its tasks' overlay networks */
  networking: TaskNetworking;
}

type Mode =
  | { kind: 'inactive' }
  | { kind: 'pending'; state: Partial<LocalNodeState>; remotes: string[]; abort: AbortController }
  | { kind: 'manager'; state: LocalNodeState; manager: Manager; certs: NodeCertificates; member?: EtcdMember }
  | { kind: 'locked'; state: LocalNodeState; certs: NodeCertificates; dataKey: string }
  | { kind: 'worker'; state: LocalNodeState; agent: Agent; server?: ClusterServer };

export class SwarmService {
  private mode: Mode = { kind: 'inactive' };
  private readonly local: LocalNode;
  /** one init, join or leave at a time */
  private busy: Promise<unknown> = Promise.resolve();
  /** the unlock key a manager's keys on disk are sealed with now, '' for none */
  private sealedWith = '';
  /** this node's tasks, whichever role it has: they run on through a promotion or demotion */
  private tasks: TaskAgent | undefined;
  /** what the node serves managers */
  private readonly nodeCalls: NodeHandlers;

  constructor(private readonly deps: SwarmServiceDeps) {
    this.local = new LocalNode(deps.dataRoot, deps.execRoot);
    this.nodeCalls = { taskLogs: taskLogs(deps.runtime, deps.log) };
  }

  /** Resumes the swarm this node was in before berthd stopped. */
  async load(): Promise<void> {
    const saved = await this.local.load();
    if (saved === undefined) return;
    const { state, certs, dataKey } = saved;
    if (state.role === 'worker') return this.becomeWorker(state, certs);
    if (dataKey === undefined) throw new EngineError('system', `the swarm's data key is missing from ${this.local.dir}`);
    // under autolock a manager waits for its unlock key
    if (isSealed(certs.keyPem) || isSealed(dataKey)) {
      await this.local.removeRuntimeKey();
      this.mode = { kind: 'locked', state, certs, dataKey };
      this.deps.log.warn('swarm: this manager is locked; `docker swarm unlock` unlocks it');
      return;
    }
    await this.becomeManager(state, certs, Buffer.from(dataKey, 'base64'));
  }

  /** `docker swarm unlock`: the unlock key opens the node's key and the data key, and the manager starts. */
  unlock(body: unknown): Promise<void> {
    return this.exclusive(async () => {
      const mode = this.mode;
      if (mode.kind === 'manager' || mode.kind === 'worker') throw new EngineError('conflict', 'swarm is not locked');
      if (mode.kind !== 'locked') throw new EngineError('unavailable', NOT_SWARM_MANAGER_MESSAGE);
      const req = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const unlockKey = str(req.UnlockKey);
      unlockKeyBytes(unlockKey);
      const keyPem = isSealed(mode.certs.keyPem) ? unseal(mode.certs.keyPem, unlockKey).toString('utf8') : mode.certs.keyPem;
      const dek = isSealed(mode.dataKey) ? unseal(mode.dataKey, unlockKey) : Buffer.from(mode.dataKey, 'base64');
      this.sealedWith = unlockKey;
      this.mode = { kind: 'inactive' };
      try {
        await this.becomeManager(mode.state, { ...mode.certs, keyPem }, dek);
      } catch (err) {
        this.mode = mode;
        throw err;
      }
      this.deps.log.info('swarm: this manager was unlocked');
    });
  }

  async shutdown(): Promise<void> {
    await this.stopMode();
  }

  /** This node's part in a swarm now: manager, worker, or none (outside one, joining, or locked). */
  role(): 'manager' | 'worker' | 'none' {
    return this.mode.kind === 'manager' || this.mode.kind === 'worker' ? this.mode.kind : 'none';
  }

  /** A plain container joins an attachable swarm network: undefined outside a swarm (the network is then none of the swarm's). */
  async attachNetwork(target: string, containerId: string): Promise<{ network: NetworkRecord; address: string } | undefined> {
    if (this.role() === 'none' || this.tasks === undefined) return undefined;
    return this.tasks.attach(target, containerId);
  }

  /** The container's swarm network address goes back; outside a swarm there is none to give. */
  async detachNetwork(containerId: string): Promise<void> {
    await this.tasks?.detach(containerId);
  }

  /** The network tables of this node's tasks' networks (empty outside a swarm). */
  networkTables(): NetworkTables {
    return this.tasks?.tables ?? new NetworkTables();
  }

  /** The network tables of a node in a swarm, or dockerd's 503 for why it is in none. */
  memberTables(): NetworkTables {
    if (this.mode.kind === 'locked') throw new EngineError('unavailable', LOCKED_MESSAGE);
    if (this.role() === 'none' || this.tasks === undefined) throw new EngineError('unavailable', NOT_IN_SWARM_MESSAGE);
    return this.tasks.tables;
  }

  /** The manager of this node, or dockerd's 503 for why there is none. */
  manager(): Manager {
    switch (this.mode.kind) {
      case 'manager':
        return this.mode.manager;
      case 'worker':
        throw new EngineError('unavailable', WORKER_NOT_MANAGER_MESSAGE);
      case 'locked':
        throw new EngineError('unavailable', LOCKED_MESSAGE);
      default:
        throw new EngineError('unavailable', NOT_SWARM_MANAGER_MESSAGE);
    }
  }

  init(body: unknown): Promise<string> {
    return this.exclusive(async () => {
      const req = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      if (req.ForceNewCluster === true && this.mode.kind === 'manager') return this.forceNewCluster(this.mode);
      if (this.mode.kind !== 'inactive') throw new EngineError('unavailable', ALREADY_IN_SWARM_MESSAGE);
      const spec = initSpec(req.Spec);
      const addrs = await resolveAddresses(str(req.ListenAddr), str(req.AdvertiseAddr), str(req.DataPathAddr));
      const dataPathPort = typeof req.DataPathPort === 'number' && req.DataPathPort !== 0 ? req.DataPathPort : DEFAULT_DATA_PATH_PORT;
      if (dataPathPort < 1024 || dataPathPort > 49151) throw invalidParameter(`Datapath port ${dataPathPort} is out of range (1024-49151)`);
      await this.local.clear();
      const workDir = await this.local.ensureWorkDir();
      const rootCa: RootCa = spec.ca.signingCaCert !== '' ? { certPem: spec.ca.signingCaCert, keyPem: spec.ca.signingCaKey } : await createRootCa(workDir);
      spec.ca.signingCaKey = '';
      const clusterId = newSwarmId();
      const nodeId = newSwarmId();
      const { keyPem, csrPem } = await newCertificateRequest(workDir);
      const certPem = await new CertificateIssuer(rootCa, workDir).issue(csrPem, { nodeId, role: 'manager', clusterId }, nodeCertExpiryMs(spec), [hostOf(addrs.advertiseAddr)]);
      const now = formatRfc3339Nano(nowNanos());
      const dek = newDataKey();
      const unlockKey = spec.autoLockManagers ? newUnlockKey() : '';
      const cluster: ClusterRecord = {
        id: clusterId,
        createdAt: now,
        updatedAt: now,
        spec,
        rootCa: { certPem: rootCa.certPem, encryptedKey: encryptSecret(dek, rootCa.keyPem) },
        joinSecrets: { worker: newJoinTokenSecret(), manager: newJoinTokenSecret() },
        encryptedUnlockKey: unlockKey === '' ? '' : encryptSecret(dek, unlockKey),
        dataPathPort,
        defaultAddrPool: Array.isArray(req.DefaultAddrPool) && req.DefaultAddrPool.length > 0 ? (req.DefaultAddrPool as string[]) : null,
        subnetSize: typeof req.SubnetSize === 'number' && req.SubnetSize !== 0 ? req.SubnetSize : 24,
      };
      const description = await this.deps.describe();
      const node: NodeRecord = {
        id: nodeId,
        createdAt: now,
        updatedAt: now,
        spec: { name: '', labels: {}, role: 'manager', availability: 'active' },
        role: 'manager',
        description,
        status: { state: 'unknown', message: '', addr: hostOf(addrs.advertiseAddr) },
        managerAddr: addrs.advertiseAddr,
        advertiseAddr: addrs.advertiseAddr,
      };
      const external = this.deps.externalEtcd;
      const store = external !== undefined ? openExternalEtcd(external).store : await LocalStore.open(this.local.storeDir);
      try {
        const clusterState = new ClusterState(store);
        await clusterState.create(cluster, node).catch((err: unknown) => {
          if (external !== undefined && err instanceof EngineError && err.message.includes('update out of sequence')) throw new EngineError('unavailable', `the swarm's etcd already holds a swarm under ${external.prefix}`);
          throw err;
        });
        await createNetwork(clusterState, INGRESS_REQUEST);
      } finally {
        await store.close();
      }
      const state: LocalNodeState = { nodeId, clusterId, role: 'manager', ...addrs, managers: [{ nodeId, addr: addrs.advertiseAddr }], ...(external !== undefined ? { externalStore: true } : {}) };
      const certs = { rootCaPem: rootCa.certPem, certPem, keyPem };
      await this.saveManagerKeys(certs, dek, unlockKey);
      await this.local.saveState(state);
      await this.becomeManager(state, certs, dek);
      this.deps.log.info({ nodeId, clusterId }, 'swarm: initialized');
      return nodeId;
    });
  }

  /**
   * `swarm init --force-new-cluster` on a manager whose swarm lost its quorum: its etcd member
   * becomes a cluster of its own, with every object it had; the other managers are no members any
   * more (demote and remove them). A single manager's LocalStore has no one else to drop.
   */
  private async forceNewCluster(mode: Extract<Mode, { kind: 'manager' }>): Promise<string> {
    const { state, certs } = mode;
    const dek = mode.manager.dataKey;
    await this.stopMode();
    if (state.etcd !== undefined) {
      await this.local.writeRuntimeKey(certs.keyPem);
      await forceNewEtcdCluster(this.local, state, state.etcd, this.deps.log);
    }
    await this.becomeManager(state, certs, dek);
    await this.servingManager();
    this.deps.log.warn({ nodeId: state.nodeId }, 'swarm: a new cluster was forced from this manager');
    return state.nodeId;
  }

  join(body: unknown): Promise<void> {
    return this.exclusive(async () => {
      if (this.mode.kind !== 'inactive') throw new EngineError('unavailable', ALREADY_IN_SWARM_MESSAGE);
      const req = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const addrs = await resolveAddresses(str(req.ListenAddr), str(req.AdvertiseAddr), str(req.DataPathAddr)).catch((err: unknown) => {
        // a join may leave the advertise address to what the manager sees
        if (str(req.AdvertiseAddr) === '' && err instanceof EngineError && /system's IP address|multiple addresses/.test(err.message)) return undefined;
        throw err;
      });
      const remotes = Array.isArray(req.RemoteAddrs) ? (req.RemoteAddrs as unknown[]).filter((r): r is string => typeof r === 'string' && r !== '') : [];
      if (remotes.length === 0) throw invalidParameter('at least 1 RemoteAddr is required to join');
      const token = parseJoinToken(str(req.JoinToken));
      const abort = new AbortController();
      this.mode = { kind: 'pending', state: { advertiseAddr: addrs?.advertiseAddr ?? '' }, remotes: remotes.map(remoteAddress), abort };
      const attempt = this.attemptJoin(remotes.map(remoteAddress), str(req.JoinToken), token.caDigest, addrs, str(req.ListenAddr), abort.signal);
      const outcome = await Promise.race([attempt.then(() => 'joined' as const), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), JOIN_WAIT_MS).unref())]).catch((err: unknown) => {
        if (this.mode.kind === 'pending') this.mode = { kind: 'inactive' };
        throw err;
      });
      if (outcome === 'waiting') {
        // it goes on in the background: a failure then leaves the node outside any swarm again
        attempt.catch((err: unknown) => {
          this.deps.log.warn({ err }, 'swarm: the join did not happen');
          if (this.mode.kind === 'pending') this.mode = { kind: 'inactive' };
        });
        throw new EngineError('unavailable', JOIN_TIMEOUT_MESSAGE);
      }
    });
  }

  leave(force: boolean): Promise<void> {
    return this.exclusive(async () => {
      const mode = this.mode;
      if (mode.kind === 'inactive') throw new EngineError('unavailable', NOT_IN_SWARM_MESSAGE);
      if (mode.kind === 'locked' && !force) throw new EngineError('unavailable', 'Swarm is encrypted and locked. Please unlock it first or use `--force` to ignore this message.');
      if (mode.kind === 'manager' && !force) await this.refuseManagerLeave(mode.manager);
      if (mode.kind === 'manager') await this.removeOwnMember(mode.manager);
      if (mode.kind === 'worker') await mode.agent.leave();
      await this.tasks?.removeAll();
      await this.stopMode();
      await this.local.clear();
      this.deps.log.info('swarm: left the swarm');
    });
  }

  async info(): Promise<SwarmInfo> {
    const mode = this.mode;
    const none: SwarmInfo = { nodeId: '', nodeAddr: '', localNodeState: 'inactive', controlAvailable: false, error: '', remoteManagers: null };
    switch (mode.kind) {
      case 'inactive':
        return none;
      case 'pending':
        return { ...none, nodeAddr: hostOf(mode.state.advertiseAddr ?? ''), localNodeState: 'pending', remoteManagers: mode.remotes.map((addr) => ({ nodeId: '', addr })) };
      case 'locked':
        return { ...none, nodeAddr: hostOf(mode.state.advertiseAddr), localNodeState: 'locked', error: LOCKED_MESSAGE };
      case 'worker':
        return { ...none, nodeId: mode.state.nodeId, nodeAddr: hostOf(mode.state.advertiseAddr), localNodeState: 'active', remoteManagers: mode.state.managers.map((m) => ({ nodeId: m.nodeId, addr: m.addr })) };
      case 'manager': {
        const info: SwarmInfo = { ...none, nodeId: mode.state.nodeId, nodeAddr: hostOf(mode.state.advertiseAddr), localNodeState: 'active', controlAvailable: true, cluster: null };
        try {
          const nodes = await mode.manager.state.nodes();
          const managers = nodes.filter((n) => n.value.role === 'manager');
          info.remoteManagers = managers.filter((n) => n.value.managerAddr !== undefined).map((n) => ({ nodeId: n.value.id, addr: n.value.managerAddr! }));
          info.nodes = nodes.length;
          info.managers = managers.length;
          const cluster = await mode.manager.state.cluster();
          info.cluster = { cluster, tlsInfo: tlsInfoOf(cluster.value.rootCa.certPem) };
        } catch (err) {
          info.error = (err as Error).message;
        }
        return info;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  private async attemptJoin(remotes: string[], tokenText: string, digest: string, addrs: Awaited<ReturnType<typeof resolveAddresses>> | undefined, listenAddr: string, signal: AbortSignal): Promise<void> {
    const workDir = await this.local.ensureWorkDir();
    const { keyPem, csrPem } = await newCertificateRequest(workDir);
    for (;;) {
      for (const remote of remotes) {
        signal.throwIfAborted();
        let answer: JoinResponse;
        let rootCaPem: string;
        try {
          rootCaPem = await fetchRootCa(remote, 5000);
        } catch (err) {
          this.deps.log.debug({ err, remote }, 'swarm: manager not reached for a join');
          continue;
        }
        // the token names the CA to trust: a manager that shows another is not this swarm's
        if (caDigest(rootCaPem) !== digest) throw new EngineError('system', `remote CA does not match fingerprint. Expected: ${base36ToHex(digest)}`);
        try {
          answer = await callManager<JoinResponse>(remote, CLUSTER_PATHS.join, { token: tokenText, csrPem, advertiseAddr: addrs?.advertiseAddr ?? '', listenAddr: addrs?.listenAddr ?? listenAddr, dataPathAddr: addrs?.dataPathAddr ?? '', description: await this.deps.describe() }, { rootCaPem });
        } catch (err) {
          if (err instanceof EngineError) throw err;
          continue;
        }
        signal.throwIfAborted();
        const advertiseAddr = addrs?.advertiseAddr ?? `${answer.observedAddr}:${listenPortOf(listenAddr)}`;
        const state: LocalNodeState = {
          nodeId: answer.nodeId,
          clusterId: answer.clusterId,
          role: answer.role,
          listenAddr: addrs?.listenAddr ?? `0.0.0.0:${listenPortOf(listenAddr)}`,
          advertiseAddr,
          dataPathAddr: addrs?.dataPathAddr ?? answer.observedAddr,
          managers: answer.managers,
        };
        const certs = { rootCaPem: answer.rootCaPem, certPem: answer.certPem, keyPem };
        await this.local.saveCertificates(certs);
        if (state.role === 'manager') await this.startNewManager(state, certs, remote);
        else {
          await this.local.saveState(state);
          await this.becomeWorker(state, certs);
        }
        this.deps.log.info({ nodeId: state.nodeId, role: state.role }, 'swarm: joined');
        return;
      }
      await new Promise((r) => setTimeout(r, JOIN_RETRY_MS));
    }
  }

  /** Starts a worker's agent, and its port for managers. */
  private async becomeWorker(state: LocalNodeState, certs: NodeCertificates): Promise<void> {
    const server = await this.workerServer(state, certs);
    const agent = new Agent({
      state,
      certs,
      describe: this.deps.describe,
      workDir: await this.local.ensureWorkDir(),
      log: this.deps.log,
      save: async (s, c) => {
        await this.local.saveCertificates(c);
        await this.local.saveState(s);
        server?.updateCredentials({ ...c, clusterId: s.clusterId });
      },
      onRoleChange: (role) => void this.roleChanged(role),
    });
    agent.start();
    this.mode = { kind: 'worker', state, agent, server };
    await this.startTasks(state, {
      assignments: (known, waitMs, signal) => agent.call<Assignments>(CLUSTER_PATHS.assignments, { known, waitMs }, waitMs + 10_000, signal),
      report: async (reports) => void (await agent.call(CLUSTER_PATHS.taskStatus, { reports }, 10_000)),
      publish: async (entries) => void (await agent.call(CLUSTER_PATHS.tableEntries, { entries }, 10_000)),
      attach: (req) => agent.call<NetworkAttachResponse>(CLUSTER_PATHS.attachNetwork, req, 10_000),
      detach: async (req) => void (await agent.call(CLUSTER_PATHS.detachNetwork, req, 10_000)),
    });
  }

  /** A worker's port, where managers read its tasks' logs; none when the address is taken (the node works on, its logs out of reach). */
  private async workerServer(state: LocalNodeState, certs: NodeCertificates): Promise<ClusterServer | undefined> {
    const { host, port } = splitHostPort(state.listenAddr);
    try {
      return await ClusterServer.listen(host, port, { ...certs, clusterId: state.clusterId }, { node: this.nodeCalls }, this.deps.log);
    } catch (err) {
      this.deps.log.warn({ err, listenAddr: state.listenAddr }, "swarm: the worker's port did not open; managers can't read its tasks' logs");
      return undefined;
    }
  }

  /** Runs this node's tasks, from `source`: the containers of tasks that ran before are found again. */
  private async startTasks(state: LocalNodeState, source: AssignmentSource): Promise<void> {
    await this.tasks?.close();
    const tasks = new TaskAgent({ nodeId: state.nodeId, dataPathAddr: state.dataPathAddr, hostname: () => os.hostname(), source, runtime: this.deps.runtime, networking: this.deps.networking, log: this.deps.log });
    this.tasks = tasks;
    tasks.start();
  }

  private async becomeManager(state: LocalNodeState, certs: NodeCertificates, dek: Buffer): Promise<void> {
    const workDir = await this.local.ensureWorkDir();
    // the etcd member reads the key from a file: a copy on the exec root's tmpfs, whatever is sealed on disk
    await this.local.writeRuntimeKey(certs.keyPem);
    let store: ClusterStore;
    let etcd: ManagerEtcd | undefined;
    let member: EtcdMember | undefined;
    if (state.externalStore === true) {
      if (this.deps.externalEtcd === undefined) throw new EngineError('system', 'this manager keeps its swarm in an etcd of its operator: --swarm-etcd-endpoint must name it');
      ({ store, etcd } = openExternalEtcd(this.deps.externalEtcd));
    } else if (state.etcd !== undefined) {
      // what a move to etcd left behind
      await rm(this.local.storeDir, { recursive: true, force: true });
      ({ store, etcd, member } = await openManagerEtcd(this.local, state, state.etcd, this.deps.log, false));
    } else {
      store = await LocalStore.open(this.local.storeDir);
    }
    const local = store;
    const manager = new Manager({
      store,
      etcd,
      local: state,
      certs,
      workDir,
      events: this.deps.events,
      log: this.deps.log,
      moveToEtcd: () => this.moveToEtcd(state, local),
      demoted: () => void this.demote(),
      node: this.nodeCalls,
      dek,
      unlockKeyIs: (unlockKey) => this.sealKeys(dek, unlockKey),
      renewed: async (renewed) => {
        await this.saveManagerKeys(renewed, dek, this.sealedWith);
        await this.local.writeRuntimeKey(renewed.keyPem);
        if (this.mode.kind === 'manager') this.mode.certs = renewed;
      },
    });
    this.mode = { kind: 'manager', state, manager, certs, member };
    try {
      await manager.start();
    } catch (err) {
      this.mode = { kind: 'inactive' };
      await manager.stop().catch(() => undefined);
      await member?.stop();
      throw err;
    }
    await this.startTasks(state, {
      assignments: (known, waitMs, signal) => manager.assignments(state.nodeId, { known, waitMs }, signal),
      report: (reports) => manager.taskStatus(state.nodeId, { reports }),
      publish: (entries) => manager.tableEntries(state.nodeId, { entries }),
      attach: (req) => manager.attachNetwork(state.nodeId, req),
      detach: (req) => manager.detachNetwork(state.nodeId, req),
    });
  }

  /**
   * The single manager's store moves into an etcd member of its own (a second manager comes): the
   * member founded, the keys copied, and the node's state saying so, which is the move's commit.
   */
  private async moveToEtcd(state: LocalNodeState, from: ClusterStore): Promise<{ store: ClusterStore; etcd: ManagerEtcd }> {
    const founding = foundingSettings(state, this.deps.etcdPorts);
    await rm(this.local.etcdDir, { recursive: true, force: true });
    const opened = await openManagerEtcd(this.local, state, { ...founding, revisionOffset: 0 }, this.deps.log, true);
    try {
      const revisionOffset = await moveToEtcd(from, opened.raw);
      state.etcd = { ...founding, revisionOffset };
      await this.local.saveState(state);
      this.deps.log.info({ revisionOffset }, 'swarm: the store moved into etcd');
      if (this.mode.kind === 'manager') this.mode.member = opened.member;
      return { store: new OffsetStore(opened.raw, revisionOffset), etcd: { ...opened.etcd, revisionOffset } };
    } catch (err) {
      opened.etcd.close();
      await opened.raw.close();
      await opened.member.stop();
      delete state.etcd;
      throw err;
    }
  }

  /**
   * A node the swarm makes a manager (a join with the manager's token, a promotion): a member of
   * the managers' etcd asked of `via`, then the manager over it. The state is saved once the
   * member is added, with its settings: a node never restarts as a manager without its store.
   */
  private async startNewManager(state: LocalNodeState, certs: NodeCertificates, via: string): Promise<void> {
    const peerUrl = peerUrlOf(state, this.deps.etcdPorts);
    const added = await callManager<AddMemberResponse>(via, CLUSTER_PATHS.addMember, { peerUrl }, certs, 60_000);
    await rm(this.local.etcdDir, { recursive: true, force: true });
    const managerState: LocalNodeState = {
      ...state,
      role: 'manager',
      // an operator's etcd (no member of its own: the manager said so) or a member of its own
      ...(added.initialCluster === ''
        ? { externalStore: true }
        : { etcd: { clientUrl: clientUrlOf(this.deps.etcdPorts), peerUrl, initialCluster: added.initialCluster, initialClusterState: 'existing' as const, revisionOffset: added.revisionOffset } }),
    };
    const dek = Buffer.from(added.dataKey, 'base64');
    await this.saveManagerKeys(certs, dek, added.unlockKey);
    await this.local.saveState(managerState);
    Object.assign(state, managerState);
    await this.becomeManager(state, certs, dek);
    await this.servingManager();
  }

  /** Waits, a while at most, for this node's new manager to serve (see Manager.serving). */
  private async servingManager(): Promise<void> {
    if (this.mode.kind === 'manager') await this.mode.manager.serving(SERVING_WAIT_MS);
  }

  private async roleChanged(role: NodeRole | 'removed'): Promise<void> {
    if (role === 'removed') {
      this.deps.log.warn('swarm: this node was removed from the swarm');
      await this.exclusive(async () => {
        await this.tasks?.removeAll();
        await this.stopMode();
        await this.local.clear();
      });
      return;
    }
    if (role === 'manager') await this.promote();
  }

  /** The swarm made this worker a manager: a manager's certificate, then a member and a manager. */
  private promote(): Promise<void> {
    return this.exclusive(async () => {
      const mode = this.mode;
      if (mode.kind !== 'worker') return;
      const { state } = mode;
      let certs = (await this.local.load())?.certs;
      if (certs === undefined) return;
      await mode.agent.stop();
      // the manager's cluster port takes the address
      await mode.server?.close();
      this.mode = { kind: 'inactive' };
      try {
        const renewed = await this.renewAtManagers(state, certs);
        if (renewed.role !== 'manager') throw new Error('the swarm no longer asks for a manager');
        certs = renewed.certs;
        await this.local.saveCertificates(certs);
        await this.startNewManager({ ...state, role: 'manager' }, certs, renewed.via);
        this.deps.log.info('swarm: this node was promoted to a manager');
      } catch (err) {
        this.deps.log.warn({ err }, 'swarm: the promotion did not happen; the node stays a worker');
        if (this.mode.kind === 'inactive') await this.becomeWorker(state, certs);
      }
    });
  }

  /** The swarm made this manager a worker: its manager and member stop, a worker's certificate, then an agent. */
  private demote(): Promise<void> {
    return this.exclusive(async () => {
      const mode = this.mode;
      if (mode.kind !== 'manager') return;
      const others = await mode.manager.managers().then((ms) => ms.filter((m) => m.nodeId !== mode.state.nodeId), () => mode.state.managers.filter((m) => m.nodeId !== mode.state.nodeId));
      const certs = (await this.local.load())?.certs;
      if (certs === undefined) return;
      await this.stopMode();
      await rm(this.local.etcdDir, { recursive: true, force: true });
      const state: LocalNodeState = { ...mode.state, role: 'worker', managers: others, etcd: undefined };
      const renewed = await this.renewAtManagers(state, certs).catch((err: unknown) => {
        this.deps.log.warn({ err }, "swarm: no worker's certificate yet; the manager's serves until renewed");
        return { certs, role: 'worker' as const, via: '' };
      });
      await this.local.saveCertificates(renewed.certs);
      await this.local.saveDataKey(undefined);
      this.sealedWith = '';
      await this.local.saveState(state);
      await this.becomeWorker(state, renewed.certs);
      this.deps.log.info('swarm: this node was demoted to a worker');
    });
  }

  /** A manager's key and data key on disk: sealed with the unlock key under autolock, plain otherwise. */
  private async saveManagerKeys(certs: NodeCertificates, dek: Buffer, unlockKey: string): Promise<void> {
    await this.local.saveCertificates(unlockKey === '' ? certs : { ...certs, keyPem: seal(certs.keyPem, unlockKey) });
    await this.local.saveDataKey(unlockKey === '' ? dek.toString('base64') : seal(dek, unlockKey));
    this.sealedWith = unlockKey;
  }

  /** What the manager's beat says of the unlock key: autolock came, went, or its key was rotated. */
  private async sealKeys(dek: Buffer, unlockKey: string): Promise<void> {
    if (unlockKey === this.sealedWith || this.mode.kind !== 'manager') return;
    await this.saveManagerKeys(this.mode.certs, dek, unlockKey);
    this.deps.log.info({ autolock: unlockKey !== '' }, 'swarm: the keys on disk were sealed again');
  }

  /** A certificate for the role the swarm gives the node now, from the first manager that answers. */
  private async renewAtManagers(state: LocalNodeState, certs: NodeCertificates): Promise<{ certs: NodeCertificates; role: NodeRole; via: string }> {
    const { keyPem, csrPem } = await newCertificateRequest(await this.local.ensureWorkDir());
    let last: unknown = new Error('no manager known');
    for (const m of state.managers) {
      try {
        const answer = await callManager<RenewResponse>(m.addr, CLUSTER_PATHS.renew, { csrPem }, certs);
        return { certs: { ...certs, certPem: answer.certPem, keyPem }, role: answer.role, via: m.addr };
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** A manager that leaves takes its etcd member out first, so that the others keep their quorum. */
  private async removeOwnMember(manager: Manager): Promise<void> {
    const membership = manager.membership();
    if (membership === undefined) return;
    try {
      const mine = (await membership.list()).find((m) => m.name === manager.nodeId);
      if (mine !== undefined) await membership.remove(mine.id);
    } catch (err) {
      this.deps.log.warn({ err }, 'swarm: the etcd member of the manager that leaves was not removed');
    }
  }

  private async stopMode(): Promise<void> {
    const mode = this.mode;
    this.mode = { kind: 'inactive' };
    await this.tasks?.close();
    this.tasks = undefined;
    if (mode.kind === 'manager') {
      await mode.manager.stop();
      await mode.member?.stop();
      await this.local.removeRuntimeKey();
    }
    if (mode.kind === 'worker') {
      await mode.agent.stop();
      await mode.server?.close();
    }
    if (mode.kind === 'pending') mode.abort.abort();
  }

  /** dockerd's refusal to let a manager leave without --force, with its quorum arithmetic. */
  private async refuseManagerLeave(manager: Manager): Promise<never> {
    const prefix = 'You are attempting to leave the swarm on a node that is participating as a manager. ';
    const suffix = 'The only way to restore a swarm that has lost consensus is to reinitialize it with `--force-new-cluster`. Use `--force` to suppress this message.';
    const managers = await listNodes(manager.state, FilterArgs.empty())
      .then((views) => views.filter((v) => v.manager !== undefined))
      .catch(() => undefined);
    if (managers === undefined) throw new EngineError('unavailable', `${prefix}Doing so may lose the consensus of your cluster. ${suffix}`);
    const reachable = managers.filter((v) => v.manager!.reachability === 'reachable').length;
    const unreachable = managers.length - reachable;
    if (reachable - 1 > (reachable + unreachable) / 2) throw new EngineError('unavailable', `${prefix}${suffix}`);
    if (reachable <= 1 && unreachable === 0) throw new EngineError('unavailable', `${prefix}Removing the last manager erases all current state of the swarm. Use \`--force\` to ignore this message. `);
    throw new EngineError('unavailable', `${prefix}Removing this node leaves ${reachable - 1} managers out of ${reachable + unreachable}. Without a Raft quorum your swarm will be inaccessible. ${suffix}`);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.busy.then(fn, fn);
    this.busy = run.catch(() => undefined);
    return run;
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function hostOf(addr: string): string {
  return addr === '' ? '' : splitHostPort(addr).host;
}

function listenPortOf(listenAddr: string): number {
  const m = /:(\d+)$/.exec(listenAddr);
  return m === null ? 2377 : Number(m[1]);
}

/** A token's base-36 CA digest as the hex that swarmkit's error shows. */
function base36ToHex(digest: string): string {
  let n = 0n;
  for (const ch of digest) n = n * 36n + BigInt(parseInt(ch, 36));
  return n.toString(16).padStart(64, '0');
}
