// A manager's etcd: its member (src/runtime/etcd-member.ts) on the node's certificate, the store
// berth keeps in it (under /berth/v1/, its revisions raised by the offset of the move from the
// LocalStore) and the membership calls. The member's client port listens on 127.0.0.1 only: on a
// manager only berthd talks to its member, and workers never reach the store at all.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { EtcdMember } from '../runtime/etcd-member.js';
import { MANAGER_NAME } from './ca/swarm-ca.js';
import type { EtcdSettings, LocalNode, LocalNodeState } from './local-node.js';
import type { ManagerEtcd } from './manager/manager.js';
import type { ClusterStore } from './store/cluster-store.js';
import { EtcdMembership } from './store/etcd-membership.js';
import { EtcdStore } from './store/etcd-store.js';
import { OffsetStore } from './store/offset-store.js';

const NAMESPACE = '/berth/v1';
/** A store call's limit: a member without a leader is caught sooner, by ManagerEtcd's leader check. */
const CALL_TIMEOUT_MS = 5000;
const MEMBERSHIP_TIMEOUT_MS = 3000;

export interface EtcdPorts {
  client: number;
  peer: number;
}

export interface OpenedEtcd {
  member: EtcdMember;
  /** etcd as it is, for the move */
  raw: EtcdStore;
  /** the swarm's store */
  store: ClusterStore;
  etcd: ManagerEtcd;
}

/** A manager's first member's settings: a cluster of its own. */
export function foundingSettings(state: LocalNodeState, ports: EtcdPorts): Omit<EtcdSettings, 'revisionOffset'> {
  const peerUrl = peerUrlOf(state, ports);
  return { clientUrl: clientUrlOf(ports), peerUrl, initialCluster: `${state.nodeId}=${peerUrl}`, initialClusterState: 'new' };
}

export function clientUrlOf(ports: EtcdPorts): string {
  return `https://127.0.0.1:${ports.client}`;
}

export function peerUrlOf(state: LocalNodeState, ports: EtcdPorts): string {
  const host = state.advertiseAddr.replace(/:\d+$/, '');
  return `https://${host}:${ports.peer}`;
}

/**
 * Starts the member of `settings` and opens the store in it. `wait`: until the member is healthy
 * (a founding member); otherwise it comes up in its own time (a restarted manager whose peers are
 * not back yet), supervised all the while, and the store answers once it can.
 */
export async function openManagerEtcd(local: LocalNode, state: LocalNodeState, settings: EtcdSettings, log: Logger, wait: boolean): Promise<OpenedEtcd> {
  const files = local.certificateFiles;
  const member = memberOf(local, state, settings, log, false);
  const started = member.start();
  if (wait) await started;
  else started.catch((err: unknown) => log.warn({ err }, 'swarm: the etcd member is not healthy yet'));
  const tls = { ca: await readFile(files.ca), cert: await readFile(files.cert), key: await readFile(files.key) };
  const raw = new EtcdStore({ endpoints: [settings.clientUrl], tls, namespace: NAMESPACE, callTimeoutMs: CALL_TIMEOUT_MS });
  const membership = new EtcdMembership({ endpoints: [settings.clientUrl], tls, callTimeoutMs: MEMBERSHIP_TIMEOUT_MS });
  return { member, raw, store: new OffsetStore(raw, settings.revisionOffset), etcd: etcdOf(membership, settings.revisionOffset) };
}

function etcdOf(membership: EtcdMembership, revisionOffset: number, own = true): ManagerEtcd {
  return {
    ...(own ? { membership } : {}),
    leader: async () => (await membership.leader()) !== undefined,
    revisionOffset,
    close: () => membership.close(),
  };
}

/** An etcd of the operator's (--swarm-etcd-endpoint): where every manager keeps the swarm, instead of members of their own. */
export interface ExternalEtcd {
  endpoints: string[];
  /** its CA, and berth's client certificate and key (PEM), when it speaks TLS */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
  /** the keys' prefix in it */
  prefix: string;
}

export function openExternalEtcd(external: ExternalEtcd): { store: ClusterStore; etcd: ManagerEtcd } {
  const raw = new EtcdStore({ endpoints: external.endpoints, ...(external.tls !== undefined ? { tls: external.tls } : {}), namespace: external.prefix, callTimeoutMs: CALL_TIMEOUT_MS });
  // only its status is asked of it: whether the member berth talks to knows a leader
  const status = new EtcdMembership({ endpoints: external.endpoints, ...(external.tls !== undefined ? { tls: external.tls } : {}), callTimeoutMs: MEMBERSHIP_TIMEOUT_MS });
  return { store: raw, etcd: etcdOf(status, 0, false) };
}

/**
 * `swarm init --force-new-cluster` on a manager: its member, from its data, made a cluster of its
 * own (etcd's --force-new-cluster), once; the manager then starts it as always.
 */
export async function forceNewEtcdCluster(local: LocalNode, state: LocalNodeState, settings: EtcdSettings, log: Logger): Promise<void> {
  const member = memberOf(local, state, settings, log, true);
  try {
    await member.start();
  } finally {
    await member.stop();
  }
}

function memberOf(local: LocalNode, state: LocalNodeState, settings: EtcdSettings, log: Logger, forceNewCluster: boolean): EtcdMember {
  const files = local.certificateFiles;
  return new EtcdMember({
    name: state.nodeId,
    dataDir: local.etcdDir,
    clientUrl: settings.clientUrl,
    peerUrl: settings.peerUrl,
    tls: { ...files, allowedHostname: MANAGER_NAME },
    initialCluster: settings.initialCluster,
    initialClusterState: settings.initialClusterState,
    forceNewCluster,
    log,
  });
}
