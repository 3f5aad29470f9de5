// The swarm object's calls on a manager: inspect (with the join tokens), update (the whole spec,
// at the version read, with token and unlock-key rotations), the unlock key.
import { randomBytes } from 'node:crypto';
import { EngineError, invalidParameter } from '../../errors.js';
import { formatRfc3339Nano, nowNanos } from '../../lib/timestamp.js';
import { caDigest, formatJoinToken, newJoinTokenSecret } from '../ca/join-token.js';
import { tlsInfoOf, type TlsInfoView } from '../ca/swarm-ca.js';
import { decryptSecret, encryptSecret } from '../ca/sealing.js';
import type { ClusterState, Versioned } from '../cluster/cluster-state.js';
import type { ClusterRecord } from '../cluster/records.js';
import { updateSpec } from '../cluster/swarm-spec.js';

export interface SwarmView {
  cluster: Versioned<ClusterRecord>;
  tlsInfo: TlsInfoView;
  joinTokens: { worker: string; manager: string };
}

export interface Rotations {
  workerToken: boolean;
  managerToken: boolean;
  unlockKey: boolean;
}

export async function inspectSwarm(state: ClusterState): Promise<SwarmView> {
  const cluster = await state.cluster();
  const digest = caDigest(cluster.value.rootCa.certPem);
  const { worker, manager } = cluster.value.joinSecrets;
  return { cluster, tlsInfo: tlsInfoOf(cluster.value.rootCa.certPem), joinTokens: { worker: formatJoinToken({ caDigest: digest, secret: worker }), manager: formatJoinToken({ caDigest: digest, secret: manager }) } };
}

const MAX_UINT64 = 0xffff_ffff_ffff_ffffn;

/**
 * dockerd's parse of a `version` query (strconv.ParseUint(v, 10, 64), in its words). Past 2^53 the
 * number is inexact, but beyond every revision all the same: the update is out of sequence.
 */
export function parseVersion(kind: string, text: string | null): number {
  const v = text ?? '';
  const refuse = (reason: string) => invalidParameter(`invalid ${kind} version '${v}': strconv.ParseUint: parsing "${v}": ${reason}`);
  if (!/^\d+$/.test(v)) throw refuse('invalid syntax');
  if (BigInt(v) > MAX_UINT64) throw refuse('value out of range');
  return Number(v);
}

/** `dek`: the managers' data key, which the unlock key is kept encrypted with. */
export async function updateSwarm(state: ClusterState, version: number, body: unknown, rotate: Rotations, dek: Buffer): Promise<void> {
  const spec = updateSpec(body);
  const { value: current } = await state.cluster();
  // `docker swarm ca --rotate` asks for a new root CA with either
  if ((spec.ca.signingCaCert !== '' && spec.ca.signingCaCert !== current.rootCa.certPem) || spec.ca.forceRotate !== current.spec.ca.forceRotate) throw new EngineError('notImplemented', 'rotating the root CA is not supported by berth');
  const next: ClusterRecord = { ...current, spec: { ...spec, ca: { ...spec.ca, signingCaKey: '' } }, updatedAt: formatRfc3339Nano(nowNanos()) };
  next.joinSecrets = { worker: rotate.workerToken ? newJoinTokenSecret() : current.joinSecrets.worker, manager: rotate.managerToken ? newJoinTokenSecret() : current.joinSecrets.manager };
  if (!spec.autoLockManagers) next.encryptedUnlockKey = '';
  else if (current.encryptedUnlockKey === '' || rotate.unlockKey) next.encryptedUnlockKey = encryptSecret(dek, newUnlockKey());
  await state.updateCluster(version, next);
}

/** The unlock key, '' when autolock is off. */
export async function unlockKeyOf(state: ClusterState, dek: Buffer): Promise<string> {
  const { encryptedUnlockKey } = (await state.cluster()).value;
  return encryptedUnlockKey === '' ? '' : decryptSecret(dek, encryptedUnlockKey);
}

/** An unlock key as swarmkit prints it: SWMKEY-1- and 32 random bytes in unpadded base64. */
export function newUnlockKey(): string {
  return `SWMKEY-1-${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
}
