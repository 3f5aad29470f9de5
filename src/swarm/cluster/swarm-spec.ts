// The swarm's spec from the API's SwarmSpec: at init, what the client set over swarmkit's defaults
// (dockerd's MergeSwarmSpecToGRPC); at update, the whole spec as sent, zeros included (what dockerd
// 20.10 does: `docker swarm update` sends back the spec it read, changed). Checked as swarmkit's
// controlapi checks it, in its words.
import { EngineError, invalidParameter } from '../../errors.js';
import type { SwarmSpec } from './records.js';

const SECOND_NS = 1_000_000_000;
const HOUR_NS = 3600 * SECOND_NS;

export const DEFAULT_HEARTBEAT_PERIOD_NS = 5 * SECOND_NS;
const DEFAULT_NODE_CERT_EXPIRY_NS = 90 * 24 * HOUR_NS;

export function defaultSwarmSpec(): SwarmSpec {
  return {
    name: 'default',
    labels: {},
    taskHistoryRetentionLimit: 5,
    raft: { snapshotInterval: 10000, keepOldSnapshots: 0, logEntriesForSlowFollowers: 500, electionTick: 10, heartbeatTick: 1 },
    heartbeatPeriodNs: DEFAULT_HEARTBEAT_PERIOD_NS,
    ca: { nodeCertExpiryNs: DEFAULT_NODE_CERT_EXPIRY_NS, externalCas: [], signingCaCert: '', signingCaKey: '', forceRotate: 0 },
    taskDefaults: {},
    autoLockManagers: false,
  };
}

/** The node certificates' lifetime the spec asks for (its default when unset). */
export function nodeCertExpiryMs(spec: SwarmSpec): number {
  return (spec.ca.nodeCertExpiryNs || DEFAULT_NODE_CERT_EXPIRY_NS) / 1e6;
}

export function heartbeatPeriodMs(spec: SwarmSpec): number {
  return (spec.heartbeatPeriodNs || DEFAULT_HEARTBEAT_PERIOD_NS) / 1e6;
}

type Wire = Record<string, unknown>;

/** The spec of `swarm init`: the defaults, with what the body sets. */
export function initSpec(body: unknown): SwarmSpec {
  const sent = decode(body);
  const spec = defaultSwarmSpec();
  spec.labels = sent.labels;
  const w = (body ?? {}) as Wire;
  const orchestration = (w.Orchestration ?? {}) as Wire;
  if (orchestration.TaskHistoryRetentionLimit !== undefined && orchestration.TaskHistoryRetentionLimit !== null) spec.taskHistoryRetentionLimit = sent.taskHistoryRetentionLimit;
  const raft = (w.Raft ?? {}) as Wire;
  if (sent.raft.snapshotInterval !== 0) spec.raft.snapshotInterval = sent.raft.snapshotInterval;
  if (raft.KeepOldSnapshots !== undefined && raft.KeepOldSnapshots !== null) spec.raft.keepOldSnapshots = sent.raft.keepOldSnapshots;
  if (sent.raft.logEntriesForSlowFollowers !== 0) spec.raft.logEntriesForSlowFollowers = sent.raft.logEntriesForSlowFollowers;
  if (sent.raft.heartbeatTick !== 0) spec.raft.heartbeatTick = sent.raft.heartbeatTick;
  if (sent.raft.electionTick !== 0) spec.raft.electionTick = sent.raft.electionTick;
  if (sent.heartbeatPeriodNs !== 0) spec.heartbeatPeriodNs = sent.heartbeatPeriodNs;
  if (sent.ca.nodeCertExpiryNs !== 0) spec.ca.nodeCertExpiryNs = sent.ca.nodeCertExpiryNs;
  spec.ca.externalCas = sent.ca.externalCas;
  spec.ca.signingCaCert = sent.ca.signingCaCert;
  spec.ca.signingCaKey = sent.ca.signingCaKey;
  spec.ca.forceRotate = sent.ca.forceRotate;
  if (sent.taskDefaults.logDriver !== undefined) spec.taskDefaults = sent.taskDefaults;
  spec.autoLockManagers = sent.autoLockManagers;
  check(spec);
  return spec;
}

/** The spec of `swarm update`: the body, whole. */
export function updateSpec(body: unknown): SwarmSpec {
  const spec = decode(body);
  check(spec);
  return spec;
}

function decode(body: unknown): SwarmSpec {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw invalidParameter('json: cannot unmarshal into Go value of type swarm.Spec');
  const w = (body ?? {}) as Wire;
  const name = str(w.Name);
  if (name !== '' && name !== 'default') throw invalidParameter('swarm spec must be named "default"');
  const orchestration = obj(w.Orchestration);
  const raft = obj(w.Raft);
  const ca = obj(w.CAConfig);
  const logDriver = obj(obj(w.TaskDefaults).LogDriver);
  return {
    name: 'default',
    labels: labels(w.Labels),
    taskHistoryRetentionLimit: num(orchestration.TaskHistoryRetentionLimit),
    raft: { snapshotInterval: num(raft.SnapshotInterval), keepOldSnapshots: num(raft.KeepOldSnapshots), logEntriesForSlowFollowers: num(raft.LogEntriesForSlowFollowers), electionTick: num(raft.ElectionTick), heartbeatTick: num(raft.HeartbeatTick) },
    heartbeatPeriodNs: num(obj(w.Dispatcher).HeartbeatPeriod),
    ca: { nodeCertExpiryNs: num(ca.NodeCertExpiry), externalCas: Array.isArray(ca.ExternalCAs) ? ca.ExternalCAs : [], signingCaCert: str(ca.SigningCACert), signingCaKey: str(ca.SigningCAKey), forceRotate: num(ca.ForceRotate) },
    taskDefaults: obj(w.TaskDefaults).LogDriver === undefined ? {} : { logDriver: { name: str(logDriver.Name), options: labels(logDriver.Options) } },
    autoLockManagers: obj(w.EncryptionConfig).AutoLockManagers === true,
  };
}

function check(spec: SwarmSpec): void {
  const invalid = (m: string) => new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = ${m}`);
  // in validateClusterSpec's order: a spec wrong in both ways gets the expiry's message
  if (spec.ca.nodeCertExpiryNs !== 0 && spec.ca.nodeCertExpiryNs < HOUR_NS) throw invalid('minimum certificate expiry time is: 1h0m0s');
  if (spec.heartbeatPeriodNs < 0) throw invalid('heartbeat time period cannot be a negative duration');
  if (spec.ca.externalCas.length > 0) throw new EngineError('notImplemented', 'external CAs are not supported by berth');
}

function obj(v: unknown): Wire {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Wire) : {};
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function labels(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(obj(v))) if (typeof value === 'string') out[k] = value;
  return out;
}
