// The secrets' and configs' calls on a manager, as swarmkit's controlapi answers them: create
// (a name of 64 [a-zA-Z0-9-_.], data of 1 byte to less than 500 KiB for a secret, 1000 KiB for a
// config, a taken name 409), list with dockerd's filters (id, label, name, names), inspect by
// ID, name or ID prefix (a secret's data never shown, a config's always), an update of the labels
// only, at the version read, and removal (refused while a service uses it).
import { EngineError, invalidParameter } from '../../errors.js';
import type { FilterArgs } from '../../lib/filters.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { decryptSecret, encryptSecret } from '../ca/sealing.js';
import { decode, encode, type ClusterState, type Versioned } from '../cluster/cluster-state.js';
import { newSwarmId } from '../ids.js';
import { ServiceState } from '../services/service-state.js';
import type { ServiceSpec } from '../services/service-types.js';
import { nameKey, prefixOf, type DriverSpec, type ObjectKind, type SecretRecord, type SecretSpec } from './secret-records.js';

const MAX_BYTES: Record<ObjectKind, number> = { secret: 500 * 1024, config: 1000 * 1024 };
const NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-_.]{0,62}[a-zA-Z0-9])?$/;
const FILTERS = new Set(['id', 'label', 'name', 'names']);

function invalidArgument(message: string): EngineError {
  return new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = ${message}`);
}

/** A view of one object: its record, version, and (configs only) data. */
export type ObjectView = Versioned<SecretRecord>;

export interface Keys {
  /** the managers' data key: a secret's data is encrypted with it */
  dek: Buffer;
}

/** A create or update body, as dockerd decodes it: Go's base64 errors for Data. */
export function decodeObjectSpec(body: unknown): SecretSpec & { driver?: DriverSpec } {
  const w = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const data = typeof w.Data === 'string' ? w.Data : '';
  const bad = firstNonBase64(data);
  if (bad !== undefined) throw invalidParameter(`illegal base64 data at input byte ${bad}`);
  return {
    name: typeof w.Name === 'string' ? w.Name : '',
    labels: strings(w.Labels),
    data,
    ...(driverOf(w.Templating) !== undefined ? { templating: driverOf(w.Templating)! } : {}),
    ...(driverOf(w.Driver) !== undefined ? { driver: driverOf(w.Driver)! } : {}),
  };
}

export async function createObject(state: ClusterState, kind: ObjectKind, spec: SecretSpec & { driver?: DriverSpec }, keys: Keys): Promise<string> {
  if (spec.name === '') throw invalidArgument('name must be provided');
  if (!NAME.test(spec.name)) throw invalidArgument('invalid name, only 64 [a-zA-Z0-9-_.] characters allowed, and the start and end character must be [a-zA-Z0-9]');
  const size = Buffer.from(spec.data, 'base64').length;
  if (size === 0 || size >= MAX_BYTES[kind]) throw invalidArgument(`${kind} data must be larger than 0 and less than ${MAX_BYTES[kind]} bytes`);
  if (spec.driver !== undefined && spec.driver.name !== '') throw new EngineError('notImplemented', `${kind} drivers are not supported by berth`);
  if (spec.templating !== undefined && spec.templating.name !== 'golang') throw invalidArgument(`templating driver '${spec.templating.name}' is not supported`);
  const id = newSwarmId();
  const now = formatRfc3339Nano(nowNanos());
  const record: SecretRecord = {
    id,
    kind,
    createdAt: now,
    updatedAt: now,
    spec: { name: spec.name, labels: spec.labels, ...(spec.templating !== undefined ? { templating: spec.templating } : {}) },
    data: kind === 'secret' ? encryptSecret(keys.dek, spec.data) : spec.data,
  };
  const { succeeded } = await state.call(() =>
    state.store.txn(
      [{ key: nameKey(kind, spec.name), modRevision: 0 }],
      [
        { put: { key: nameKey(kind, spec.name), value: encode({ id }) } },
        { put: { key: prefixOf(kind) + id, value: encode(record) } },
      ],
    ),
  );
  if (!succeeded) throw new EngineError('conflict', `rpc error: code = AlreadyExists desc = ${kind} ${spec.name} already exists`);
  return id;
}

export async function listObjects(state: ClusterState, kind: ObjectKind, filters: FilterArgs): Promise<ObjectView[]> {
  for (const key of filters.keys()) if (!FILTERS.has(key)) throw invalidParameter(`Invalid filter '${key}'`);
  const all = await objects(state, kind);
  return all.filter(({ value: o }) => {
    if (filters.has('id') && !filters.values('id').some((p) => o.id.startsWith(p))) return false;
    if (filters.has('name') && !filters.values('name').some((p) => o.spec.name.startsWith(p))) return false;
    if (filters.has('names') && !filters.values('names').includes(o.spec.name)) return false;
    if (filters.has('label') && !filters.matchKeyValues('label', o.spec.labels)) return false;
    return true;
  });
}

/** By ID, then name, then ID prefix, as dockerd's getSecret and getConfig look. */
export async function findObject(state: ClusterState, kind: ObjectKind, input: string): Promise<ObjectView> {
  const exact = await state.call(() => state.store.get(prefixOf(kind) + input));
  if (exact !== undefined) return { value: decode<SecretRecord>(exact.value), version: exact.modRevision };
  const all = await objects(state, kind);
  for (const match of [(o: SecretRecord) => o.spec.name === input, (o: SecretRecord) => o.id.startsWith(input)]) {
    const found = all.filter((o) => match(o.value));
    if (found.length > 1) throw invalidParameter(`${kind} ${input} is ambiguous (${found.length} matches found)`);
    if (found.length === 1) return found[0]!;
  }
  throw new EngineError('notFound', `${kind} ${input} not found`);
}

/** dockerd's parse of an update's version: a plain 400, without strconv's words for these kinds. */
export function parseObjectVersion(kind: ObjectKind, text: string | null): number {
  if (text === null || !/^\d+$/.test(text)) throw invalidParameter(`invalid ${kind} version`);
  return Number(text);
}

export async function updateObject(state: ClusterState, kind: ObjectKind, input: string, version: number, spec: SecretSpec, keys: Keys): Promise<void> {
  const { value: current } = await findObject(state, kind, input);
  const currentData = kind === 'secret' ? decryptSecret(keys.dek, current.data) : current.data;
  const sameTemplating = JSON.stringify(spec.templating ?? null) === JSON.stringify(current.spec.templating ?? null);
  // as swarmkit: an update may leave the data out (a secret's is never shown), or send it unchanged
  if (spec.name !== current.spec.name || (spec.data !== '' && spec.data !== currentData) || !sameTemplating) throw invalidArgument('only updates to Labels are allowed');
  const next: SecretRecord = { ...current, updatedAt: formatRfc3339Nano(nowNanos()), spec: { ...current.spec, labels: spec.labels } };
  const { succeeded } = await state.call(() => state.store.txn([{ key: prefixOf(kind) + current.id, modRevision: version }], [{ put: { key: prefixOf(kind) + current.id, value: encode(next) } }]));
  if (!succeeded) throw new EngineError('system', 'rpc error: code = Unknown desc = update out of sequence');
}

export async function removeObject(state: ClusterState, kind: ObjectKind, input: string): Promise<void> {
  const { value: o, version } = await findObject(state, kind, input);
  const users = (await new ServiceState(state).services()).map((s) => s.value.spec).filter((spec) => referencedBy(spec, kind).includes(o.id)).map((spec) => spec.Name);
  if (users.length > 0) throw invalidArgument(`${kind} '${o.spec.name}' is in use by the following service${users.length > 1 ? 's' : ''}: ${users.join(', ')}`);
  const { succeeded } = await state.call(() =>
    state.store.txn(
      [{ key: prefixOf(kind) + o.id, modRevision: version }],
      [{ delete: { key: prefixOf(kind) + o.id } }, { delete: { key: nameKey(kind, o.spec.name) } }],
    ),
  );
  if (!succeeded) throw new EngineError('system', 'rpc error: code = Unknown desc = update out of sequence');
}

function referencedBy(spec: ServiceSpec, kind: ObjectKind): string[] {
  const c = spec.TaskTemplate.ContainerSpec;
  return kind === 'secret' ? (c?.Secrets ?? []).map((r) => r.SecretID) : (c?.Configs ?? []).map((r) => r.ConfigID);
}

async function objects(state: ClusterState, kind: ObjectKind): Promise<ObjectView[]> {
  const { kvs } = await state.call(() => state.store.range(prefixOf(kind)));
  return kvs.map((kv) => ({ value: decode<SecretRecord>(kv.value), version: kv.modRevision }));
}

/** Where Go's StdEncoding would stop: the index of the first byte it refuses. */
function firstNonBase64(text: string): number | undefined {
  const body = text.replace(/=+$/, '');
  for (let i = 0; i < body.length; i++) if (!/[A-Za-z0-9+/]/.test(body[i]!)) return i;
  if (text.length % 4 !== 0) return text.length - (text.length % 4);
  return undefined;
}

function driverOf(v: unknown): DriverSpec | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const d = v as Record<string, unknown>;
  return { name: typeof d.Name === 'string' ? d.Name : '', options: strings(d.Options) };
}

function strings(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v === 'object' && v !== null) for (const [k, value] of Object.entries(v)) if (typeof value === 'string') out[k] = value;
  return out;
}
