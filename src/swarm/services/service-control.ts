// The services' and tasks' calls on a manager, as swarmkit's controlapi answers them: create (a
// name taken once, 409), inspect by ID, name or ID prefix, update of the whole spec at the version
// read (PreviousSpec kept; `rollback=previous` swaps back; a mode change or a rename refused with
// 501s), removal (the orchestrator shuts the tasks down and reaps them), and the tasks' list and
// inspect. The specs' checks are service-spec.ts's; the networks a spec names are resolved to the
// swarm networks' IDs, and the secrets and configs it names must exist.
import { EngineError, invalidParameter } from '../../errors.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { allocateEndpoint, type Endpoint } from '../allocator/endpoint-allocation.js';
import { checkPortConflicts } from '../allocator/port-allocation.js';
import { decode, updateOutOfSequence, type Versioned } from '../cluster/cluster-state.js';
import { newSwarmId } from '../ids.js';
import { networks, resolveServiceNetworks, type LocalNetworks } from '../networks/network-control.js';
import type { NodePortRanges } from '../node-port-ranges.js';
import { prefixOf, type SecretRecord } from '../objects/secret-records.js';
import { isJob, modeName, serviceNameKey, type ServiceRecord, type TaskRecord } from './service-records.js';
import { decodeServiceSpec, type ServiceBehaviours } from './service-spec.js';
import { validateServiceSpec } from './service-validation.js';
import { serviceNotFound, type Claims, type ServiceState } from './service-state.js';
import type { ServiceSpec } from './service-types.js';

/** how often a create or update is tried again when another manager allocated meanwhile */
const ALLOCATION_ATTEMPTS = 5;

function invalidArgument(message: string): EngineError {
  return new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = ${message}`);
}

export interface ServiceRequest {
  body: unknown;
  /** the request's API version: fields newer than it are dropped */
  api: ServiceBehaviours;
  /** X-Registry-Auth, as sent: the nodes pull the service's image with it */
  registryAuth: string | undefined;
}

/** What of this node's own a service's create and update read. */
export interface ServiceControlDeps {
  /** this node's own networks, which a spec may name but not use */
  localNetworks: LocalNetworks;
  /** this daemon's settings: this manager allocates with them */
  nodePortRanges: NodePortRanges;
}

export async function createService(services: ServiceState, req: ServiceRequest, deps: ServiceControlDeps): Promise<{ id: string; warnings: string[] }> {
  const spec = await resolveServiceNetworks(services.cluster, decodeServiceSpec(req.body, req.api), deps.localNetworks);
  validateServiceSpec(spec);
  const id = newSwarmId();
  for (let attempt = 0; attempt < ALLOCATION_ATTEMPTS; attempt++) {
    const { endpoint, claims } = await allocate(services, spec, id, undefined, deps.nodePortRanges);
    if (attempt === 0) await checkReferences(services, spec);
    const now = formatRfc3339Nano(nowNanos());
    const record: ServiceRecord = {
      id,
      createdAt: now,
      updatedAt: now,
      spec,
      endpoint,
      ...(req.registryAuth !== undefined && req.registryAuth !== '' ? { registryAuth: req.registryAuth } : {}),
      ...(isJob(spec.Mode) ? { jobStatus: { iteration: 0, lastExecution: now } } : {}),
    };
    if (await services.createService(record, claims)) return { id, warnings: [] };
    if ((await services.cluster.call(() => services.cluster.store.get(serviceNameKey(spec.Name)))) !== undefined) {
      throw new EngineError('conflict', `rpc error: code = AlreadyExists desc = name conflicts with an existing object: service ${spec.Name} already exists`);
    }
  }
  throw updateOutOfSequence();
}

/** By ID, then name, then ID prefix, as dockerd's getService looks. */
export async function findService(services: ServiceState, input: string): Promise<Versioned<ServiceRecord>> {
  const exact = await services.service(input);
  if (exact !== undefined) return exact;
  const all = await services.services();
  for (const match of [(s: ServiceRecord) => s.spec.Name === input, (s: ServiceRecord) => s.id.startsWith(input)]) {
    const found = all.filter((s) => match(s.value));
    if (found.length > 1) throw invalidParameter(`service ${input} is ambiguous (${found.length} matches found)`);
    if (found.length === 1) return found[0]!;
  }
  throw serviceNotFound(input);
}

export function parseServiceVersion(text: string | null): number {
  if (text === null || !/^\d+$/.test(text)) throw invalidParameter(`invalid service version '${text ?? ''}'`);
  return Number(text);
}

export interface UpdateRequest extends ServiceRequest {
  version: number;
  /** `previous`: back to the previous spec, the body ignored */
  rollback: string | null;
  /** where the credentials come from when X-Registry-Auth has none: the spec's or the previous spec's */
  registryAuthFrom: string | null;
}

export async function updateService(services: ServiceState, input: string, req: UpdateRequest, deps: ServiceControlDeps): Promise<{ warnings: string[] }> {
  const { value: current } = await findService(services, input);
  const now = formatRfc3339Nano(nowNanos());
  let next: ServiceRecord;
  if (req.rollback === 'previous') {
    if (current.previousSpec === undefined) throw new EngineError('invalidParameter', `rpc error: code = FailedPrecondition desc = service ${current.id} does not have a previous spec`);
    next = { ...current, updatedAt: now, spec: current.previousSpec, previousSpec: current.spec, updateStatus: { state: 'rollback_started', startedAt: now, message: 'manually requested rollback' } };
  } else {
    const spec = await resolveServiceNetworks(services.cluster, decodeServiceSpec(req.body, req.api), deps.localNetworks);
    validateServiceSpec(spec);
    if (modeName(spec.Mode) !== modeName(current.spec.Mode)) throw new EngineError('notImplemented', 'rpc error: code = Unimplemented desc = service mode change is not allowed');
    if (spec.Name !== current.spec.Name) throw new EngineError('notImplemented', 'rpc error: code = Unimplemented desc = renaming services is not supported');
    await checkReferences(services, spec);
    // a new spec starts a new update: a paused one's status goes
    next = { ...current, updatedAt: now, spec, previousSpec: current.spec };
    delete next.updateStatus;
    // a job runs again with each update
    if (isJob(spec.Mode)) next.jobStatus = { iteration: (current.jobStatus?.iteration ?? 0) + 1, lastExecution: now };
  }
  const auth = req.registryAuth !== undefined && req.registryAuth !== '' ? req.registryAuth : req.registryAuthFrom === 'previous-spec' ? current.registryAuth : undefined;
  if (auth !== undefined) next.registryAuth = auth;
  // another manager's allocation meanwhile: again, as long as the service is still at the version asked
  for (let attempt = 0; attempt < ALLOCATION_ATTEMPTS; attempt++) {
    const { endpoint, claims } = await allocate(services, next.spec, current.id, current.endpoint, deps.nodePortRanges);
    if (await services.putService(req.version, { ...next, endpoint }, claims)) return { warnings: [] };
    if ((await services.service(current.id))?.version !== req.version) break;
  }
  throw updateOutOfSequence();
}

export async function removeService(services: ServiceState, input: string): Promise<void> {
  const found = await findService(services, input);
  await services.deleteService(found.value, found.version);
}

/** Task IDs are looked up exactly or by prefix, as dockerd's getTask does. */
export async function findTask(services: ServiceState, input: string): Promise<Versioned<TaskRecord>> {
  const exact = await services.task(input);
  if (exact !== undefined) return exact;
  const found = (await services.tasks()).filter((t) => t.value.id.startsWith(input));
  if (found.length > 1) throw invalidParameter(`task ${input} is ambiguous (${found.length} matches found)`);
  if (found.length === 1) return found[0]!;
  throw new EngineError('notFound', `task ${input} not found`);
}

/** The secrets and configs a spec names exist, by ID and with that name (swarmkit's checkSecretExistence and checkConfigExistence). */
async function checkReferences(services: ServiceState, spec: ServiceSpec): Promise<void> {
  const c = spec.TaskTemplate.ContainerSpec;
  const store = services.cluster.store;
  for (const [kind, refs] of [
    ['secret', (c?.Secrets ?? []).map((r) => ({ id: r.SecretID, name: r.SecretName }))],
    ['config', (c?.Configs ?? []).map((r) => ({ id: r.ConfigID, name: r.ConfigName }))],
  ] as const) {
    const missing: string[] = [];
    for (const ref of refs) {
      const kv = await services.cluster.call(() => store.get(prefixOf(kind) + ref.id));
      if (kv === undefined || decode<SecretRecord>(kv.value).spec.name !== ref.name) missing.push(ref.name);
    }
    if (missing.length > 0) throw invalidArgument(`${kind}${missing.length > 1 ? 's' : ''} not found: ${missing.join(', ')}`);
  }
}

/**
 * The endpoint as swarmkit's allocator makes it (endpoint-allocation.ts), once the ports asked for
 * pass controlapi's conflict check. Ingress ports are the routing mesh's and virtual IPs the
 * overlay networks' (neither is there yet: they are allocated and shown, not bound).
 */
async function allocate(services: ServiceState, spec: ServiceSpec, id: string, previous: Endpoint | undefined, portRanges: NodePortRanges): Promise<{ endpoint: Endpoint; claims: Claims }> {
  const [all, held, swarmNetworks] = await Promise.all([services.services(), services.heldAllocations(), networks(services.cluster)]);
  checkPortConflicts(spec.EndpointSpec?.Ports ?? [], id, all.map((s) => s.value));
  return allocateEndpoint(spec, previous, new Map(swarmNetworks.map((n) => [n.value.id, n.value])), held, portRanges);
}

