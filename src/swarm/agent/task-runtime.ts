// What a node's agent needs of its engine to run tasks: the containers area's task containers
// (src/container/task-containers.ts) and the images area's pull, composed by the daemon.
import type { NetworkRecord } from '../../network/network-record.js';
import type { ServicePort, SwarmEndpointChange } from '../../network/dns/swarm-names.js';
import type { PeerRecord } from '../../network/overlay/overlay-data-plane.js';
import type { Ingress } from '../../network/service-lb/ingress-mesh.js';
import type { SwarmNetworkRef } from '../../network/swarm-endpoints.js';
import type { PortConfig, TaskSpec } from '../services/service-types.js';

/** A secret's or config's file in the task's container. */
export interface FileDelivery {
  /** absolute path in the container */
  target: string;
  data: Buffer;
  uid: string;
  gid: string;
  mode: number;
}

/** A swarm network a task joins, and the names the task answers to on it. */
export interface TaskNetwork {
  network: NetworkRecord;
  /** the service's name, then the attachment's aliases */
  aliases: string[];
  /** the task's address on it, as the managers' allocator gave it (no prefix length) */
  address?: string;
}

export interface TaskContainerRequest {
  /** `<service>.<slot>.<task id>`, or `<service>.<node id>.<task id>` for a global service's */
  name: string;
  /** the com.docker.swarm.* labels, over the container spec's */
  labels: Record<string, string>;
  spec: TaskSpec;
  /** host-mode published ports (0: any free port) */
  hostPorts: PortConfig[];
  secrets: FileDelivery[];
  configs: FileDelivery[];
  networks: TaskNetwork[];
  /** the task spec's log driver; the engine's default without one */
  logDriver?: { Name: string; Options?: Record<string, string> };
}

export interface TaskContainerState {
  running: boolean;
  /** whether it has run at all (Docker's status is no longer `created`) */
  everStarted: boolean;
  pid: number;
  exitCode: number;
  /** the runtime's error, when the container could not run */
  error: string;
  /** the host-mode ports as bound */
  ports: PortConfig[];
  /** its endpoints on the networks it joined */
  endpoints: Array<{ endpointId: string; networkId: string; ip: string; mac: string }>;
}

/** Which of a task's log entries to read: `docker service logs`' options, as each node applies them. */
export interface TaskLogRead {
  stdout: boolean;
  stderr: boolean;
  sinceNs?: bigint;
  /** the last this many entries (of both streams); all when undefined */
  tail?: number;
  /** on until the container's run ends */
  follow: boolean;
}

/** One entry of a task's log: a line with its newline, or a piece of a longer one. */
export interface TaskLogEntry {
  stream: 'stdout' | 'stderr';
  timeNs: bigint;
  data: Buffer;
}

export interface TaskRuntime {
  /** Pulls the image unless the node has it, with the service's credentials (X-Registry-Auth, as sent). */
  pull(image: string, registryAuth: string | undefined): Promise<void>;
  create(req: TaskContainerRequest): Promise<{ id: string }>;
  start(id: string): Promise<void>;
  /** Stops it with its stop signal, then SIGKILL after `graceSeconds`. */
  stop(id: string, graceSeconds: number): Promise<void>;
  /** Removes it, running or not, with its secrets' and configs' files. */
  remove(id: string): Promise<void>;
  /** Once its health check first says healthy (at once without one), or unhealthy, or its run ends. */
  untilHealthy(id: string): Promise<'healthy' | 'unhealthy' | 'ended'>;
  /** Its exit code, once it has stopped. */
  wait(id: string): Promise<number>;
  inspect(id: string): TaskContainerState | undefined;
  /** Its log, as `docker logs` reads it; following until its run ends (the coming run, when it has not started yet). */
  logs(id: string, read: TaskLogRead, signal: AbortSignal): AsyncIterable<TaskLogEntry>;
  /** The containers with this label, and their labels. */
  list(label: string): Array<{ id: string; labels: Record<string, string> }>;
}

/** A plain container's endpoint on an attachable swarm network. */
export interface AttachedEndpoint {
  networkId: string;
  endpointId: string;
  /** the container's name */
  name: string;
  /** with its prefix length */
  address: string;
  mac: string;
  /** its network aliases and short ID */
  aliases: string[];
}

/** What the agent tells the node's networking of the swarm networks its tasks are on. */
export interface TaskNetworking {
  /** The node's underlay for overlay networks: before any task's container starts. */
  setDataPath(dataPath: { address: string; port: number }): Promise<void>;
  /** A network's whole peer table, every node's endpoints. */
  setPeers(networkId: string, peers: readonly PeerRecord[]): Promise<void>;
  /** The networks the node's tasks are on now, before the changes of their records. */
  addNetworks(networks: readonly SwarmNetworkRef[]): void;
  /** The networks not among these are forgotten, after the removals of their records. */
  leftNetworks(networks: readonly SwarmNetworkRef[]): void;
  /** A change of an endpoint record, by Docker's rules (endpoint-changes.ts): for DNS and the load balancers. */
  applyEndpoint(networkId: string, change: SwarmEndpointChange): void;
  /** The node's routing mesh: its address on the ingress network and every ingress-published port; undefined takes it away. */
  setIngress(ingress: Ingress | undefined): Promise<void>;
  /** This node's plain containers on attachable swarm networks, once plumbed: what their records say. */
  attachedEndpoints(): AttachedEndpoint[];
  /** Calls `listener` whenever those change; the cancel function. */
  watchAttachments(listener: () => void): () => void;
  /** Every service's named ports on those networks, for SRV answers. */
  setServicePorts(services: ReadonlyArray<{ serviceId: string; ports: readonly ServicePort[] }>): void;
}
