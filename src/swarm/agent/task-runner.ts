// One task on this node, as swarmkit's agent and dockerd's executor run it: accepted, preparing
// (the image pulled, the container made: `rejected` when either fails), ready, starting, running,
// then complete or failed as the container exits, or shutdown when the desired state says so.
// Each step is reported as it is reached (the manager keeps a state only when it moves forward);
// a task removed from the node's assignments takes its container with it.
import type { Logger } from 'pino';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { hasEnded, stateRank, taskName, type ContainerStatus, type TaskRecord, type TaskState, type TaskStatus } from '../services/service-records.js';
import type { FileDelivery, TaskNetwork, TaskRuntime } from './task-runtime.js';
import { PortConfig_Protocol } from '../../generated/libnetwork/agent_pb.js';
import { encodeEndpointRecord } from '../endpoint-record.js';
import { ENDPOINT_TABLE } from '../endpoints/network-tables.js';
import { peerEntry } from '../endpoints/peer-record.js';
import type { OwnedEntry } from '../endpoints/table-store.js';

const DEFAULT_GRACE_SECONDS = 10;

export interface TaskRunnerDeps {
  runtime: TaskRuntime;
  nodeId: string;
  log: Logger;
  report: (taskId: string, status: TaskStatus) => void;
  /** the task leaves DNS and the load balancers everywhere (its records published disabled) before it stops */
  beforeStop: () => Promise<void>;
  /** this node's data-path address: where the other nodes tunnel to its endpoints */
  dataPathAddr: string;
}

/** What a task needs besides its record: its secrets' and configs' files, and its networks. */
export interface TaskInputs {
  secrets: FileDelivery[];
  configs: FileDelivery[];
  networks: TaskNetwork[];
  /** why they could not be had (a template, a network gone) */
  error?: string;
}

export class TaskRunner {
  private state: TaskState;
  private containerStatus: ContainerStatus | undefined;
  private removed = false;
  /** the stop asked for: the exit that follows is no failure */
  private stopping = false;
  private driving: Promise<void> = Promise.resolve();
  private watched = false;
  /** its health check failed: its exit is that failure */
  private unhealthy = false;

  constructor(
    private task: TaskRecord,
    private inputs: TaskInputs,
    private containerId: string | undefined,
    private readonly deps: TaskRunnerDeps,
  ) {
    this.state = task.status.state;
    this.containerStatus = task.status.containerStatus;
  }

  /** The task as the manager has it now. */
  update(task: TaskRecord, inputs: TaskInputs): Promise<void> {
    this.task = task;
    this.inputs = inputs;
    return this.drive();
  }

  /** The task left the node's assignments: its container goes. */
  remove(): Promise<void> {
    this.removed = true;
    return this.drive();
  }

  private drive(): Promise<void> {
    this.driving = this.driving.then(() => this.step()).catch((err: unknown) => this.deps.log.warn({ err, task: this.task.id }, 'swarm: task step failed'));
    return this.driving;
  }

  private async step(): Promise<void> {
    const { runtime } = this.deps;
    const t = this.task;
    if (this.removed) {
      this.stopping = true;
      if (this.containerId !== undefined) await runtime.remove(this.containerId);
      this.containerId = undefined;
      return;
    }
    if (hasEnded(this.state)) return;
    if (t.desiredState === 'shutdown' || t.desiredState === 'remove') {
      this.stopping = true;
      if (this.containerId !== undefined) {
        await this.deps.beforeStop();
        await runtime.stop(this.containerId, graceSeconds(t));
      }
      return this.report('shutdown', 'shutdown');
    }
    if (this.before('accepted')) this.report('accepted', 'accepted');
    if (this.before('ready')) {
      if (this.before('preparing')) this.report('preparing', 'preparing');
      const image = t.spec.ContainerSpec?.Image ?? '';
      const { secrets, configs, networks, error } = this.inputs;
      try {
        if (error !== undefined) throw new Error(error);
        await runtime.pull(image, t.registryAuth);
        const logDriver = logDriverOf(t);
        this.containerId ??= (await runtime.create({ name: taskName(this.task), labels: this.labels(), spec: t.spec, hostPorts: (t.endpoint?.ports ?? []).filter((p) => p.PublishMode === 'host'), secrets, configs, networks, ...(logDriver !== undefined ? { logDriver } : {}) })).id;
      } catch (err) {
        return this.report('rejected', 'preparing', (err as Error).message);
      }
      this.report('ready', 'prepared');
    }
    if (t.desiredState === 'ready') return;
    // as dockerd's executor, a container that has ever run is not started again: a task waiting to
    // be healthy (or adopted after a restart) is driven again by every assignment meanwhile
    if (this.before('running') && runtime.inspect(this.containerId!)?.everStarted !== true) {
      if (this.before('starting')) this.report('starting', 'starting');
      try {
        await runtime.start(this.containerId!);
      } catch (err) {
        return this.report('failed', 'starting', (err as Error).message);
      }
    }
    if (!this.watched) await this.watchRun();
  }

  /** Reports the run (a container adopted after a restart too) and what ends it. */
  private async watchRun(): Promise<void> {
    const { runtime } = this.deps;
    const id = this.containerId;
    const now = id === undefined ? undefined : runtime.inspect(id);
    if (id === undefined || now === undefined) return this.report('failed', 'started', 'the task\'s container is gone');
    this.watched = true;
    this.containerStatus = { containerId: id, pid: now.pid, exitCode: 0 };
    const exited = (code: number) => {
      if (this.stopping || hasEnded(this.state)) return;
      this.containerStatus = { containerId: id, pid: 0, exitCode: code };
      if (code === 0 && !this.unhealthy) this.report('complete', 'finished');
      else this.report('failed', 'started', `task: non-zero exit (${code})${this.unhealthy ? ': unhealthy container' : ''}`);
    };
    if (!now.running) return exited(now.exitCode);
    void runtime.wait(id).then(exited, (err: unknown) => this.deps.log.debug({ err, task: this.task.id }, 'swarm: task wait failed'));
    if (this.before('running')) void this.runOnceHealthy(id);
  }

  /**
   * As dockerd's executor, a task with a health check runs once it is healthy, and only then has
   * its records (DNS, load balancers); an unhealthy one is stopped and fails.
   */
  private async runOnceHealthy(id: string): Promise<void> {
    const { runtime } = this.deps;
    const health = await runtime.untilHealthy(id);
    if (this.stopping || hasEnded(this.state)) return;
    if (health === 'healthy') return this.report('running', 'started', undefined, runtime.inspect(id)?.ports);
    if (health === 'unhealthy') {
      this.unhealthy = true;
      await runtime.stop(id, graceSeconds(this.task)).catch((err: unknown) => this.deps.log.warn({ err, task: this.task.id }, 'swarm: an unhealthy task was not stopped'));
    }
  }

  /**
   * The task's EndpointRecords, one per swarm network it joined, as libnetwork fills them
   * (docs/design/swarm.md, "Endpoint records"): while it runs, and `service_disabled` once it is
   * asked to stop, until it has; beside each, the PeerRecord by which other nodes tunnel to it.
   */
  endpointEntries(): OwnedEntry[] {
    const t = this.task;
    if (this.containerId === undefined || this.state !== 'running') return [];
    const live = this.deps.runtime.inspect(this.containerId);
    if (live === undefined || !live.running) return [];
    const attachments = new Map((t.spec.Networks ?? []).map((n) => [n.Target, n]));
    const ingress = t.networks?.find((a) => a.network.spec.ingress)?.network.id;
    const hostname = t.spec.ContainerSpec?.Hostname ?? '';
    const name = taskName(this.task);
    return live.endpoints
      .filter((e) => attachments.has(e.networkId) || e.networkId === ingress)
      .flatMap((e): OwnedEntry[] => {
        const vip = t.endpoint?.virtualIps.find((v) => v.networkId === e.networkId)?.addr.split('/')[0] ?? '';
        const record = encodeEndpointRecord({
          name,
          serviceName: t.serviceAnnotations.name,
          serviceId: t.serviceId,
          virtualIp: vip,
          endpointIp: e.ip,
          aliases: attachments.get(e.networkId)?.Aliases ?? [],
          // the routing mesh's ports, in the ingress network's record alone
          ingressPorts: e.networkId === ingress ? ingressPorts(t) : [],
          taskAliases: [this.containerId!.slice(0, 12), ...(hostname !== '' && hostname !== name ? [hostname] : [])],
          serviceDisabled: t.desiredState !== 'running' && t.desiredState !== 'ready' && t.desiredState !== 'complete',
        });
        const address = t.networks?.find((a) => a.network.id === e.networkId)?.addresses[0] ?? e.ip;
        return [{ networkId: e.networkId, table: ENDPOINT_TABLE, key: e.endpointId, value: record }, peerEntry(e.networkId, e.endpointId, { address, mac: e.mac }, this.deps.dataPathAddr)];
      });
  }

  private before(state: TaskState): boolean {
    return stateRank(this.state) < stateRank(state);
  }

  private report(state: TaskState, message: string, err?: string, ports?: TaskStatus['portStatus']): void {
    this.state = state;
    const status: TaskStatus = {
      timestamp: formatRfc3339Nano(nowNanos()),
      state,
      message,
      ...(err !== undefined ? { err } : {}),
      ...(this.containerStatus !== undefined ? { containerStatus: this.containerStatus } : {}),
      ...(ports !== undefined && ports.length > 0 ? { portStatus: ports } : {}),
    };
    this.deps.report(this.task.id, status);
  }

  private labels(): Record<string, string> {
    const t = this.task;
    return {
      'com.docker.swarm.node.id': this.deps.nodeId,
      'com.docker.swarm.service.id': t.serviceId,
      'com.docker.swarm.service.name': t.serviceAnnotations.name,
      'com.docker.swarm.task': '',
      'com.docker.swarm.task.id': t.id,
      'com.docker.swarm.task.name': taskName(this.task),
    };
  }
}

/** The task spec's log driver, or the swarm's default the task was made with; none: the engine's default. */
function logDriverOf(t: TaskRecord): { Name: string; Options?: Record<string, string> } | undefined {
  const own = t.spec.LogDriver;
  if (own?.Name !== undefined && own.Name !== '') return { Name: own.Name, ...(own.Options !== undefined ? { Options: own.Options } : {}) };
  return t.logDriver === undefined ? undefined : { Name: t.logDriver.name, Options: t.logDriver.options };
}

function graceSeconds(t: TaskRecord): number {
  const ns = t.spec.ContainerSpec?.StopGracePeriod;
  return ns === undefined ? DEFAULT_GRACE_SECONDS : Math.round(ns / 1e9);
}

const RECORD_PROTOCOLS = { tcp: PortConfig_Protocol.TCP, udp: PortConfig_Protocol.UDP, sctp: PortConfig_Protocol.SCTP } as const;

/** The task's ports published through the routing mesh, as libnetwork's record carries them. */
function ingressPorts(t: TaskRecord) {
  return (t.endpoint?.ports ?? []).filter((p) => p.PublishMode === 'ingress').map((p) => ({ name: p.Name ?? '', protocol: RECORD_PROTOCOLS[p.Protocol], targetPort: p.TargetPort ?? 0, publishedPort: p.PublishedPort ?? 0 }));
}
