// The swarm area: this node's membership (swarm-service.ts) resumed from the data root, the
// Swarm and Node routes' backend (`api`), the swarm's networks for the network area (`networks`),
// the Swarm section of /info (`info`), and the debug view of the node's network tables (`debug`).
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { Logger } from 'pino';
import type { EventBus } from '../events/event-bus.js';
import type { FilterArgs } from '../lib/filters.js';
import { readHostFacts } from '../system/host-facts.js';
import { BERTH_VERSION } from '../version.js';
import { tlsInfoOf } from './ca/swarm-ca.js';
import type { NodeDescription } from './cluster/records.js';
import { inspectSwarm, parseVersion, unlockKeyOf, updateSwarm, type Rotations } from './manager/cluster-control.js';
import { decodeNodeSpec, findNode, listNodes, removeNode, updateNode } from './manager/node-control.js';
import { SwarmService } from './swarm-service.js';
import { createObject, decodeObjectSpec, findObject, listObjects, parseObjectVersion, removeObject, updateObject } from './objects/secret-control.js';
import type { ObjectKind } from './objects/secret-records.js';
import type { EtcdPorts } from './manager-etcd.js';
import { parseNodePortRanges } from './node-port-ranges.js';
import type { TaskNetworking, TaskRuntime } from './agent/task-runtime.js';
import { openLogs, type LogSelector, type LogsRequest } from './manager/log-broker.js';
import type { NetworkCreateRequest } from '../network/create-request.js';
import type { SwarmNetworks } from '../network/swarm-networks.js';
import { createNetwork, networks as swarmNetworks, removeNetwork, type LocalNetworks } from './networks/network-control.js';
import { networkView } from './networks/network-records.js';
import { networkServices } from './endpoints/network-services.js';
import { networkTableView } from './endpoints/network-table-view.js';
import { createService, findService, findTask, parseServiceVersion, removeService, updateService, type ServiceRequest } from './services/service-control.js';
import { selectServices, selectTasks } from './services/service-filters.js';
import { withDefaults } from './services/service-spec.js';
import { serviceCounts } from './services/service-status.js';

export interface SwarmDeps {
  dataRoot: string;
  execRoot: string;
  events: EventBus;
  log: Logger;
  /** the daemon's labels (key=value), which nodes show as their engine's */
  engineLabels: readonly string[];
  /** the plugins each node's engine shows: log, network and volume drivers */
  plugins: () => { log: readonly string[]; network: readonly string[]; volume: readonly string[] };
  /** a manager's etcd member's ports */
  etcdPorts: EtcdPorts;
  /** an etcd of the operator's, instead of the managers' own members */
  externalEtcd: { endpoints: string[]; caFile: string; certFile: string; keyFile: string; prefix: string };
  /** what runs this node's tasks */
  runtime: TaskRuntime;
  networking: TaskNetworking;
  /** this node's own networks, which a service may name but not use */
  localNetworks: LocalNetworks;
  /** the daemon's node-port-range and dynamic-node-port-range: where this manager's allocator puts published ports */
  nodePortRanges: { range: string; dynamic: string };
}

export async function createSwarm(deps: SwarmDeps) {
  // berthd checked them at start already (cli/main.ts)
  const nodePortRanges = parseNodePortRanges(deps.nodePortRanges.range, deps.nodePortRanges.dynamic);
  const describe = async (): Promise<NodeDescription> => {
    const host = readHostFacts();
    const p = deps.plugins();
    const labels: Record<string, string> = {};
    for (const l of deps.engineLabels) {
      const at = l.indexOf('=');
      if (at > 0) labels[l.slice(0, at)] = l.slice(at + 1);
    }
    const plugins = [...[...p.log].sort().map((name) => ({ type: 'Log', name })), ...[...p.network].sort().map((name) => ({ type: 'Network', name })), ...[...p.volume].sort().map((name) => ({ type: 'Volume', name }))];
    return {
      hostname: os.hostname(),
      platform: { architecture: host.architecture, os: 'linux' },
      resources: { nanoCpus: host.cpus * 1e9, memoryBytes: host.memTotalBytes },
      engine: { engineVersion: BERTH_VERSION, labels, plugins },
    };
  };
  const external = deps.externalEtcd;
  const externalEtcd = external.endpoints.length === 0 ? undefined : { endpoints: external.endpoints, prefix: external.prefix, ...(external.caFile !== '' ? { tls: { ca: await readFile(external.caFile), ...(external.certFile !== '' ? { cert: await readFile(external.certFile), key: await readFile(external.keyFile) } : {}) } } : {}) };
  const service = new SwarmService({ dataRoot: deps.dataRoot, execRoot: deps.execRoot, events: deps.events, log: deps.log, describe, etcdPorts: deps.etcdPorts, externalEtcd, runtime: deps.runtime, networking: deps.networking });
  await service.load();
  const state = () => service.manager().state;
  const rootTls = async () => tlsInfoOf((await state().cluster()).value.rootCa.certPem);

  const api = {
    init: (body: unknown) => service.init(body),
    join: (body: unknown) => service.join(body),
    leave: (force: boolean) => service.leave(force),
    inspect: () => inspectSwarm(state()),
    // the version first, as dockerd's route parses it before it asks the cluster
    update: async (version: string | null, body: unknown, rotate: Rotations) => {
      const v = parseVersion('swarm', version);
      await updateSwarm(state(), v, body, rotate, service.manager().dataKey);
    },
    unlockKey: async () => unlockKeyOf(state(), service.manager().dataKey),
    unlock: (body: unknown) => service.unlock(body),
    listNodes: async (filters: FilterArgs) => ({ nodes: await listNodes(state(), filters), tlsInfo: await rootTls() }),
    inspectNode: async (id: string) => ({ node: await findNode(state(), id), tlsInfo: await rootTls() }),
    updateNode: async (id: string, version: string | null, body: unknown) => {
      const v = parseVersion('node', version);
      await updateNode(state(), id, v, decodeNodeSpec(body));
    },
    removeNode: (id: string, force: boolean) => removeNode(state(), id, force, (nodeId) => service.manager().endSession(nodeId)),
    objects: (kind: ObjectKind) => ({
      list: (filters: FilterArgs) => listObjects(state(), kind, filters),
      create: async (body: unknown) => createObject(state(), kind, decodeObjectSpec(body), { dek: service.manager().dataKey }),
      inspect: (id: string) => findObject(state(), kind, id),
      update: async (id: string, version: string | null, body: unknown) => {
        const v = parseObjectVersion(kind, version);
        await updateObject(state(), kind, id, v, decodeObjectSpec(body), { dek: service.manager().dataKey });
      },
      remove: (id: string) => removeObject(state(), kind, id),
    }),
  };
  const services = () => service.manager().services;
  const serviceDeps = { localNetworks: deps.localNetworks, nodePortRanges };
  const serviceApi = {
    async list(filters: FilterArgs, status: boolean) {
      const all = await services().services();
      const versions = new Map(all.map((s) => [s.value.id, s.version]));
      const found = selectServices(all.map((s) => s.value), filters).map((value) => ({ value, version: versions.get(value.id)! }));
      if (!status) return found.map((s) => ({ service: s }));
      const [tasks, nodes] = await Promise.all([services().tasks(), state().nodes()]);
      const byId = new Map(nodes.map((n) => [n.value.id, n.value]));
      return found.map((s) => ({ service: s, status: serviceCounts(s.value, tasks.map((t) => t.value), byId) }));
    },
    create: (req: ServiceRequest) => createService(services(), req, serviceDeps),
    async inspect(id: string, insertDefaults: boolean) {
      const found = await findService(services(), id);
      return insertDefaults ? { ...found, value: { ...found.value, spec: withDefaults(found.value.spec) } } : found;
    },
    update: async (id: string, version: string | null, req: ServiceRequest & { rollback: string | null; registryAuthFrom: string | null }) => {
      const v = parseServiceVersion(version);
      return updateService(services(), id, { ...req, version: v }, serviceDeps);
    },
    remove: (id: string) => removeService(services(), id),
    async listTasks(filters: FilterArgs) {
      const [tasks, all] = await Promise.all([services().tasks(), services().services()]);
      const versions = new Map(tasks.map((t) => [t.value.id, t.version]));
      const lookups = {
        serviceId: async (input: string) => (await findService(services(), input)).value.id,
        nodeId: async (input: string) => (await findNode(state(), input)).node.value.id,
        services: new Map(all.map((s) => [s.value.id, s.value])),
      };
      return (await selectTasks(tasks.map((t) => t.value), filters, lookups)).map((value) => ({ value, version: versions.get(value.id)! }));
    },
    inspectTask: (id: string) => findTask(services(), id),
    async logs(selector: LogSelector, req: LogsRequest) {
      const manager = service.manager();
      return openLogs(manager.services, (task, read, signal) => manager.taskLogs(task, read, signal), selector, req);
    },
  };
  const networks: SwarmNetworks = {
    role: () => service.role(),
    list: async () => (await swarmNetworks(state())).map((n) => networkView(n.value)),
    create: (req: NetworkCreateRequest) => createNetwork(state(), req),
    remove: (id: string) => removeNetwork(state(), id),
    services: (networkId: string) => networkServices(service.networkTables(), networkId, deps.log),
    attach: (target: string, containerId: string) => service.attachNetwork(target, containerId),
    detach: (containerId: string) => service.detachNetwork(containerId),
  };
  const debug = {
    networkTable: (networkId: string, table: string) => networkTableView(service.memberTables(), networkId, table),
  };
  return { api: { ...api, services: serviceApi }, networks, debug, info: () => service.info(), shutdown: () => service.shutdown() };
}
