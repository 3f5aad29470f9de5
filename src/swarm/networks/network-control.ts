// The swarm networks' calls on a manager, as dockerd's cluster and swarmkit's controlapi answer
// them: create (once this node's checks sent it to the swarm: validateNetworkSpec in its words,
// then the allocation), list, lookup by ID, name or ID prefix (dockerd's getNetwork), removal
// (refused while a service, or a task that may still run, uses it), and the resolution of the
// networks a service names to their IDs (dockerd's populateNetworkID).
import { EngineError, invalidParameter, notFound } from '../../errors.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import type { NetworkCreateRequest } from '../../network/create-request.js';
import { IpNet } from '../../network/ip-net.js';
import { isJoinedSwarmNetwork, isPredefined, type NetworkRecord } from '../../network/network-record.js';
import { decode, encode, type ClusterState, type Versioned } from '../cluster/cluster-state.js';
import { newSwarmId } from '../ids.js';
import { stateRank, type TaskRecord } from '../services/service-records.js';
import { ServiceState } from '../services/service-state.js';
import type { NetworkAttachmentConfig, ServiceSpec } from '../services/service-types.js';
import { allocatePools, allocateVxlanId, checkIpamEntries, type IpamEntry } from './network-allocation.js';
import { NETWORK_ALLOCATION_KEY, NETWORKS, networkNameKey, type SwarmNetworkRecord } from './network-records.js';

const NAME = /^[a-zA-Z0-9](?:[-_]*[A-Za-z0-9]+)*$/;
const PREDEFINED_LABEL = 'com.docker.swarm.predefined';
/** how often a create is tried again when another manager allocated meanwhile */
const ALLOCATION_ATTEMPTS = 5;

/** This node's networks, as dockerd's daemon finds one by name or ID (FindNetwork): undefined for none. */
export type LocalNetworks = (term: string) => NetworkRecord | undefined;

function rpcError(kind: EngineError['kind'], code: string, message: string): EngineError {
  return new EngineError(kind, `rpc error: code = ${code} desc = ${message}`);
}

export async function createNetwork(state: ClusterState, req: NetworkCreateRequest): Promise<string> {
  checkNetworkRequest(req);
  const entries = ipamEntries(req);
  for (let attempt = 0; attempt < ALLOCATION_ATTEMPTS; attempt++) {
    const [allocation, existing, cluster] = await Promise.all([state.call(() => state.store.get(NETWORK_ALLOCATION_KEY)), networks(state), state.cluster()]);
    const held = existing.map((n) => n.value);
    const ingress = held.find((n) => n.spec.ingress);
    if (req.ingress && ingress !== undefined) throw rpcError('conflict', 'AlreadyExists', `ingress network (${ingress.id}) is already present`);
    const now = formatRfc3339Nano(nowNanos());
    const record: SwarmNetworkRecord = {
      id: newSwarmId(),
      createdAt: now,
      updatedAt: now,
      spec: {
        name: req.name,
        labels: req.labels ?? {},
        options: req.options ?? {},
        internal: req.internal,
        attachable: req.attachable,
        enableIPv6: req.enableIPv6,
        ...(req.ingress ? { ingress: true as const } : {}),
        ipam: { options: req.ipam?.options ?? {}, entries },
      },
      pools: allocatePools(entries, held.flatMap((n) => n.pools.map((p) => IpNet.parse(p.subnet)!)), cluster.value, req.ingress),
      vxlanId: allocateVxlanId(held.map((n) => n.vxlanId), req.ingress),
    };
    const { succeeded } = await state.call(() =>
      state.store.txn(
        [
          { key: networkNameKey(req.name), modRevision: 0 },
          { key: NETWORK_ALLOCATION_KEY, modRevision: allocation?.modRevision ?? 0 },
        ],
        [
          { put: { key: networkNameKey(req.name), value: encode({ id: record.id }) } },
          { put: { key: NETWORKS + record.id, value: encode(record) } },
          { put: { key: NETWORK_ALLOCATION_KEY, value: encode({ networkId: record.id }) } },
        ],
      ),
    );
    if (succeeded) return record.id;
    if ((await state.call(() => state.store.get(networkNameKey(req.name)))) !== undefined) throw nameTaken(req.name);
  }
  throw new EngineError('system', 'rpc error: code = Unknown desc = update out of sequence');
}

/** What is checked before anything is allocated: swarmkit's validateNetworkSpec in its words, then what berth cannot make. */
export function checkNetworkRequest(req: NetworkCreateRequest): void {
  if (req.ingress && req.attachable) throw rpcError('invalidParameter', 'InvalidArgument', 'ingress network cannot be attachable');
  if (!NAME.test(req.name)) throw rpcError('invalidParameter', 'InvalidArgument', 'name must be valid as a DNS name component');
  if (req.name.length > 63) throw rpcError('invalidParameter', 'InvalidArgument', 'name must be 63 characters or fewer');
  if (req.labels !== null && Object.hasOwn(req.labels, PREDEFINED_LABEL)) {
    throw rpcError('forbidden', 'PermissionDenied', `label ${PREDEFINED_LABEL} is for internally created predefined networks and cannot be applied by users`);
  }
  // the daemon's default driver, as for a local network
  const driver = req.driver || 'bridge';
  if (driver !== 'overlay') throw new EngineError('notImplemented', `berth makes swarm networks of the overlay driver only, not ${driver}`);
  // the overlay driver encrypts when the option is there, whatever its value; berth has no IPsec
  if (Object.hasOwn(req.options ?? {}, 'encrypted')) throw new EngineError('notImplemented', 'encrypted overlay networks are not supported by berth');
  const ipamDriver = req.ipam?.driver ?? '';
  if (ipamDriver !== '' && ipamDriver !== 'default') throw rpcError('invalidParameter', 'InvalidArgument', `error during lookup of plugin ${ipamDriver}`);
  checkIpamEntries(ipamEntries(req));
}

/** The ingress network swarm init makes, as dockerd's: the first default subnet, VXLAN ID 4096. */
export const INGRESS_REQUEST: NetworkCreateRequest = { name: 'ingress', checkDuplicate: true, driver: 'overlay', scope: 'swarm', enableIPv6: false, ipam: null, internal: false, attachable: false, ingress: true, configOnly: false, configFrom: null, options: null, labels: null };

function ipamEntries(req: NetworkCreateRequest): IpamEntry[] {
  return (req.ipam?.config ?? []).map((c) => ({ subnet: c.subnet, ipRange: c.ipRange, gateway: c.gateway }));
}

export async function networks(state: ClusterState): Promise<Array<Versioned<SwarmNetworkRecord>>> {
  const { kvs } = await state.call(() => state.store.range(NETWORKS));
  return kvs.map((kv) => ({ value: decode<SwarmNetworkRecord>(kv.value), version: kv.modRevision }));
}

/** dockerd's getNetwork: the full ID, then the name, then an ID prefix; a network not found is its plain (500) error. */
export async function findNetwork(state: ClusterState, input: string): Promise<Versioned<SwarmNetworkRecord>> {
  const all = await networks(state);
  const exact = all.find((n) => n.value.id === input);
  if (exact !== undefined) return exact;
  const byName = all.filter((n) => n.value.spec.name === input);
  const found = byName.length > 0 ? byName : all.filter((n) => n.value.id.startsWith(input));
  if (found.length > 1) throw invalidParameter(`network ${input} is ambiguous (${found.length} matches found)`);
  if (found.length === 0) throw new EngineError('system', `network ${input} not found`);
  return found[0]!;
}

/** Refused while a service names it, or a task that may still run is on it (swarmkit's FailedPrecondition, 400). */
export async function removeNetwork(state: ClusterState, id: string): Promise<void> {
  const services = new ServiceState(state);
  const [found, all, tasks] = await Promise.all([state.call(() => state.store.get(NETWORKS + id)), services.services(), services.tasks()]);
  if (found === undefined) throw notFound(`network ${id} not found`);
  const network = decode<SwarmNetworkRecord>(found.value);
  if (network.spec.ingress) {
    const user = all.find((s) => hasIngressPorts(s.value.spec));
    if (user !== undefined) throw rpcError('invalidParameter', 'FailedPrecondition', `ingress network cannot be removed because service ${user.value.id} depends on it`);
  }
  const user = all.find((s) => serviceNetworks(s.value.spec).some((n) => n.Target === id));
  if (user !== undefined) throw rpcError('invalidParameter', 'FailedPrecondition', `network ${id} is in use by service ${user.value.id}`);
  const task = tasks.map((t) => t.value).find((t) => mayRun(t) && (t.spec.Networks ?? []).some((n) => n.Target === id));
  if (task !== undefined) throw rpcError('invalidParameter', 'FailedPrecondition', `network ${id} is in use by task ${task.id}`);
  const { succeeded } = await state.call(() =>
    state.store.txn([{ key: NETWORKS + id, modRevision: found.modRevision }], [{ delete: { key: NETWORKS + id } }, { delete: { key: networkNameKey(network.spec.name) } }]),
  );
  if (!succeeded) throw new EngineError('system', 'rpc error: code = Unknown desc = update out of sequence');
}

/**
 * The spec with each network it names replaced by the swarm network's ID, as dockerd's
 * populateNetworkID does before swarmkit sees it; a network of this node's own is refused as not
 * scoped to the swarm (403). The predefined host and bridge networks, which swarmkit keeps as swarm
 * networks of their own, are not yet berth's to attach services to (501).
 */
export async function resolveServiceNetworks(state: ClusterState, spec: ServiceSpec, local: LocalNetworks): Promise<ServiceSpec> {
  // the task's networks, or the service's (deprecated) when the task names none
  const inTask = (spec.TaskTemplate.Networks ?? []).length > 0;
  const named = (inTask ? spec.TaskTemplate.Networks : spec.Networks) ?? [];
  if (named.length === 0) return spec;
  const resolved: NetworkAttachmentConfig[] = [];
  for (const n of named) {
    const network = (await resolveOne(state, n.Target, local)).value;
    if (network.spec.ingress) throw rpcError('invalidParameter', 'InvalidArgument', `Service cannot be explicitly attached to the ingress network "${network.spec.name}"`);
    resolved.push({ ...n, Target: network.id });
  }
  return inTask ? { ...spec, TaskTemplate: { ...spec.TaskTemplate, Networks: resolved } } : { ...spec, Networks: resolved };
}

async function resolveOne(state: ClusterState, target: string, local: LocalNetworks): Promise<Versioned<SwarmNetworkRecord>> {
  try {
    return await findNetwork(state, target);
  } catch (err) {
    const ln = local(target);
    if (ln !== undefined && isPredefined(ln)) {
      if (ln.name === 'host' || ln.name === 'bridge') throw new EngineError('notImplemented', `berth does not attach services to the predefined network ${ln.name} yet`);
      throw notFound(`could not find the corresponding predefined swarm network: network ${ln.name} not found`);
    }
    if (ln !== undefined && !isJoinedSwarmNetwork(ln)) {
      throw new EngineError('forbidden', `The network ${ln.name} cannot be used with services. Only networks scoped to the swarm can be used, such as those created with the overlay driver.`);
    }
    throw err;
  }
}

/** Whether a service publishes a port through the routing mesh (the ingress network). */
export function hasIngressPorts(spec: ServiceSpec): boolean {
  return (spec.EndpointSpec?.Ports ?? []).some((p) => p.PublishMode === 'ingress');
}

/** The networks a service's spec names: its task's, and the deprecated service-level ones. */
export function serviceNetworks(spec: ServiceSpec): NetworkAttachmentConfig[] {
  return [...(spec.TaskTemplate.Networks ?? []), ...(spec.Networks ?? [])];
}

/** A task whose desired and current states are both still at most running (swarmkit's test for a network's removal). */
function mayRun(t: TaskRecord): boolean {
  return stateRank(t.desiredState) <= stateRank('running') && stateRank(t.status.state) <= stateRank('running');
}

function nameTaken(name: string): EngineError {
  return new EngineError('conflict', `network with name ${name} already exists`);
}
