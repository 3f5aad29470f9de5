// What the swarm's agent does with containers, as dockerd's executor does it through its backend
// (moby v20.10 daemon/cluster/executor/container/adapter.go and controller.go): a task's container
// made through the typed create from its spec (task-create-body.ts), its secrets and configs on a
// tmpfs of its own (task-files.ts); started, stopped with the task's grace period, waited on,
// inspected and removed by ID, its log read as `docker logs` reads it. The swarm's labels on each
// container let the agent find its tasks' containers again after a restart (list), and wait again
// on those that still run.
// A task's swarm networks are kept on this node (the network area's record of each) from before
// its container is made until the last container that names one is removed; the two run one at a
// time, so that neither undoes the other.
import type { Logger } from 'pino';
import { EngineError } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { NetworkRecord } from '../network/network-record.js';
import type { TaskLogRead } from '../swarm/agent/task-runtime.js';
import type { PortConfig } from '../swarm/services/service-types.js';
import { validateContainerName } from './config/container-name.js';
import { CURRENT_API_BEHAVIOURS } from './config/create-behaviours.js';
import type { CreateLimits } from './config/create-limits.js';
import { normalizeCreate } from './config/normalize-create.js';
import type { ContainerImages } from './container-images.js';
import type { ContainerNetworks } from './container-networks.js';
import type { ContainerPaths } from './container-paths.js';
import type { ContainerService } from './container-service.js';
import { hasProcess, isActive } from './container-state.js';
import type { ContainerRecord } from './container-record.js';
import type { ContainerStore } from './container-store.js';
import { openContainerLog } from './logs/container-logs.js';
import type { LogEntry } from './logs/log-codecs.js';
import { taskCreateBody, type TaskContainerInput } from './task-create-body.js';
import { nameTaskFiles, writeTaskFiles, type TaskFile } from './task-files.js';

export interface TaskContainersDeps {
  service: ContainerService;
  events: EventBus;
  store: ContainerStore;
  images: ContainerImages;
  networks: Pick<ContainerNetworks, 'ports' | 'endpoints' | 'joinSwarmNetwork' | 'leaveSwarmNetwork'>;
  paths: ContainerPaths;
  limits: CreateLimits;
  dataRoot: string;
  log: Logger;
}

export interface TaskContainerRequest extends TaskContainerInput {
  /** `<service>.<slot>.<task id>`, as the agent names it */
  name: string;
  secrets: readonly TaskFile[];
  configs: readonly TaskFile[];
  /** the swarm networks the task joins (the first is its network mode), and its names on each */
  networks: ReadonlyArray<{ network: NetworkRecord; aliases: string[]; address?: string }>;
}

/** What the agent reports of a task's container (swarmkit's ContainerStatus and PortStatus). */
export interface TaskContainerState {
  /** Docker's State.Running */
  running: boolean;
  /** whether it has run at all (its status is no longer `created`) */
  everStarted: boolean;
  pid: number;
  exitCode: number;
  /** why the last start failed, or its run was lost */
  error: string;
  /** RFC 3339; dockerd's zero time until it happens */
  startedAt: string;
  finishedAt: string;
  /** the host-mode ports it has bound, while it runs */
  ports: PortConfig[];
  /** its endpoints on the networks it joined, IPv4 ones */
  endpoints: Array<{ endpointId: string; networkId: string; ip: string; mac: string }>;
}

export function taskContainers(deps: TaskContainersDeps) {
  const { service, images } = deps;
  let joins: Promise<unknown> = Promise.resolve();
  /** Runs `step` after the joins and leaves before it. */
  const serially = <T>(step: () => Promise<T>): Promise<T> => {
    const run = joins.then(step, step);
    joins = run.catch(() => undefined);
    return run;
  };
  /** The swarm networks among these that no container names any more are left. */
  const dropUnused = (networkIds: readonly string[]) =>
    serially(async () => {
      const named = new Set(deps.store.all().flatMap(networksNamed));
      for (const id of networkIds) if (!named.has(id)) await deps.networks.leaveSwarmNetwork(id);
    });
  return {
    /** Makes the task's container from an image already here (the agent pulls first); dockerd's create warnings come back. */
    async create(req: TaskContainerRequest): Promise<{ id: string; warnings: string[] }> {
      const body = taskCreateBody({ ...req, networkMode: req.networks[0]?.network.id });
      const files = nameTaskFiles(req);
      const name = validateContainerName(req.name);
      const image = images.get(body.config.Image ?? '');
      const { warnings, ...normalized } = normalizeCreate({ body: { ...body, networkingConfig: {} }, api: CURRENT_API_BEHAVIOURS, image: image.config.config ?? null, limits: deps.limits, dataRoot: deps.dataRoot });
      const layers = { id: image.id, topLayer: image.topLayer, layerDirs: images.layerDirs(image) };
      // the executor connects a task's other networks right after its create: the record ends the same
      const networkIds = req.networks.map((n) => n.network.id);
      // the address the swarm gave the task on each network, so that it is the same on every node's view
      if (networkIds.length > 0) normalized.networkingConfig = { EndpointsConfig: Object.fromEntries(req.networks.map((n) => [n.network.id, { Aliases: n.aliases, ...(n.address !== undefined ? { IPAMConfig: { IPv4Address: n.address } } : {}) }])) };
      const id = await serially(async () => {
        for (const { network } of req.networks) await deps.networks.joinSwarmNetwork(network);
        return service.create({ name, image: layers, ...normalized, taskFiles: files });
      }).catch(async (err: unknown) => {
        await dropUnused(networkIds);
        throw err;
      });
      if (files.length > 0) {
        try {
          await writeTaskFiles(deps.paths.secretsDir(id), files);
        } catch (err) {
          // the removal unmounts what was mounted
          await service.remove(id, { force: true, removeVolumes: true }).catch(() => {});
          await dropUnused(networkIds);
          throw err;
        }
      }
      return { id, warnings };
    },

    start: (id: string): Promise<void> => service.start(id),

    /** Signals the stop signal, then kills once `graceSeconds` (the container's StopTimeout, or 10 s, when undefined) have passed; a container already stopped or gone is no error, as for the executor. */
    async stop(id: string, graceSeconds?: number): Promise<void> {
      await service.stop(id, graceSeconds).catch(unless('notModified', 'notFound'));
    },

    /** Kills and removes the container with its anonymous volumes and its task files, then the swarm networks it alone named; one already gone is no error. */
    async remove(id: string): Promise<void> {
      const record = deps.store.byId(id);
      await service.remove(id, { force: true, removeVolumes: true }).catch(unless('notFound'));
      if (record !== undefined) await dropUnused(networksNamed(record));
    },

    /**
     * Once the container's health check first says healthy (at once without one), or unhealthy, or
     * its run ends: what dockerd's executor waits for before a task runs.
     */
    async untilHealthy(id: string): Promise<'healthy' | 'unhealthy' | 'ended'> {
      const { live } = deps.events.subscribe({ accept: (ev) => ev.type === 'container' && ev.actor.id === id && (ev.action.startsWith('health_status') || ev.action === 'die' || ev.action === 'destroy') });
      try {
        // what it is now, after the subscription: a status reached before it is not missed
        const record = deps.store.byId(id);
        if (record === undefined || !isActive(record.state.status)) return 'ended';
        const status = record.state.health?.Status;
        if (status === undefined || status === 'healthy' || status === 'unhealthy') return status === 'unhealthy' ? 'unhealthy' : 'healthy';
        for await (const ev of live) {
          if (ev.action === 'health_status: healthy') return 'healthy';
          if (ev.action === 'health_status: unhealthy') return 'unhealthy';
          if (!ev.action.startsWith('health_status')) return 'ended';
        }
        return 'ended';
      } finally {
        live.close();
      }
    },

    /** Settles with the exit code once the container does not run (at once when it does not): its end, for the agent. */
    async wait(id: string): Promise<number> {
      return (await service.wait(id, 'not-running')).statusCode;
    },

    inspect(id: string): TaskContainerState | undefined {
      const record = deps.store.byId(id);
      if (record === undefined) return undefined;
      const s = record.state;
      const running = isActive(s.status);
      const ports = running ? deps.networks.ports(id).map((p): PortConfig => ({ Protocol: p.protocol, TargetPort: p.containerPort, PublishedPort: p.hostPort, PublishMode: 'host' })) : [];
      const endpoints = deps.networks.endpoints(id).flatMap((e) => (e.ipv4Address === undefined ? [] : [{ endpointId: e.id, networkId: e.networkId, ip: e.ipv4Address.split('/')[0]!, mac: e.macAddress }]));
      return { running, everStarted: s.hasBeenStarted, pid: s.pid, exitCode: s.exitCode, error: s.error, startedAt: s.startedAt, finishedAt: s.finishedAt, ports, endpoints };
    },

    /**
     * The container's log entries, as `docker logs` reads them (its driver's 501 and 500 first);
     * following until its run ends, or the run to come of a container made and not started yet (a
     * task's container runs once: the executor never starts it again).
     */
    async *logs(id: string, read: TaskLogRead, signal: AbortSignal): AsyncGenerator<LogEntry> {
      const record = service.get(id);
      // taken together, before any wait: a run that ends meanwhile is this one's end, not a next one's
      const follow = read.follow && (hasProcess(record.state.status) || record.state.status === 'created');
      const ended = service.currentOrNextRunEnded(record.id);
      const entries = await openContainerLog(deps, record);
      yield* entries({ ...read, follow, ended, signal });
    },

    /** The containers that carry the label (com.docker.swarm.task.id: every task's), with their labels. */
    list(label: string): Array<{ id: string; labels: Record<string, string> }> {
      return service
        .list()
        .filter((r) => Object.hasOwn(r.config.Labels ?? {}, label))
        .map((r) => ({ id: r.id, labels: { ...r.config.Labels } }));
    },
  };
}

/** The networks a container names: its network mode's and its endpoints'. */
function networksNamed(record: ContainerRecord): string[] {
  return [record.hostConfig.NetworkMode ?? '', ...Object.keys(record.networkingConfig.EndpointsConfig ?? {})];
}

/** A rejection handler that lets errors of these kinds pass as success. */
function unless(...kinds: Array<EngineError['kind']>): (err: unknown) => void {
  return (err) => {
    if (!(err instanceof EngineError && kinds.includes(err.kind))) throw err;
  };
}
