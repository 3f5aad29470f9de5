// The swarm's records as the API shows them (api/types/swarm.ts): Go's omitempty fields left out
// when zero, the root CA's TLSInfo beside the swarm and each node, never a key.
import type { NodeView } from '../../../swarm/manager/node-control.js';
import type { SwarmView } from '../../../swarm/manager/cluster-control.js';
import type { SwarmInfo as SwarmInfoView } from '../../../swarm/swarm-service.js';
import type { TlsInfoView } from '../../../swarm/ca/swarm-ca.js';
import type { ClusterRecord, SwarmSpec as SpecRecord } from '../../../swarm/cluster/records.js';
import type { ClusterInfo, Config, Node, Secret, Swarm, SwarmInfo, SwarmSpec, TLSInfo } from '../../types/swarm.js';
import type { ObjectView } from '../../../swarm/objects/secret-control.js';

export function toSwarm(view: SwarmView): Swarm {
  return { ...toClusterInfo(view.cluster.value, view.cluster.version, view.tlsInfo), JoinTokens: { Worker: view.joinTokens.worker, Manager: view.joinTokens.manager } };
}

export function toClusterInfo(c: ClusterRecord, version: number, tlsInfo: TlsInfoView): ClusterInfo {
  return {
    ID: c.id,
    Version: { Index: version },
    CreatedAt: c.createdAt,
    UpdatedAt: c.updatedAt,
    Spec: toSwarmSpec(c.spec),
    TLSInfo: toTlsInfo(tlsInfo),
    RootRotationInProgress: false,
    DefaultAddrPool: c.defaultAddrPool,
    SubnetSize: c.subnetSize,
    DataPathPort: c.dataPathPort,
  };
}

function toSwarmSpec(s: SpecRecord): SwarmSpec {
  const logDriver = s.taskDefaults.logDriver;
  return {
    Name: s.name,
    Labels: s.labels,
    Orchestration: { TaskHistoryRetentionLimit: s.taskHistoryRetentionLimit },
    Raft: {
      ...(s.raft.snapshotInterval !== 0 ? { SnapshotInterval: s.raft.snapshotInterval } : {}),
      KeepOldSnapshots: s.raft.keepOldSnapshots,
      ...(s.raft.logEntriesForSlowFollowers !== 0 ? { LogEntriesForSlowFollowers: s.raft.logEntriesForSlowFollowers } : {}),
      ElectionTick: s.raft.electionTick,
      HeartbeatTick: s.raft.heartbeatTick,
    },
    Dispatcher: s.heartbeatPeriodNs !== 0 ? { HeartbeatPeriod: s.heartbeatPeriodNs } : {},
    CAConfig: {
      ...(s.ca.nodeCertExpiryNs !== 0 ? { NodeCertExpiry: s.ca.nodeCertExpiryNs } : {}),
      ...(s.ca.externalCas.length > 0 ? { ExternalCAs: s.ca.externalCas } : {}),
      ...(s.ca.signingCaCert !== '' ? { SigningCACert: s.ca.signingCaCert } : {}),
      ...(s.ca.forceRotate !== 0 ? { ForceRotate: s.ca.forceRotate } : {}),
    },
    TaskDefaults: logDriver === undefined ? {} : { LogDriver: { Name: logDriver.name, ...(Object.keys(logDriver.options).length > 0 ? { Options: logDriver.options } : {}) } },
    EncryptionConfig: { AutoLockManagers: s.autoLockManagers },
  };
}

function toTlsInfo(t: TlsInfoView): TLSInfo {
  return { TrustRoot: t.trustRoot, CertIssuerSubject: t.issuerSubject, CertIssuerPublicKey: t.issuerPublicKey };
}

export function toNode(view: NodeView, tlsInfo: TlsInfoView): Node {
  const n = view.node.value;
  const d = n.description;
  return {
    ID: n.id,
    Version: { Index: view.node.version },
    CreatedAt: n.createdAt,
    UpdatedAt: n.updatedAt,
    Spec: { ...(n.spec.name !== '' ? { Name: n.spec.name } : {}), Labels: n.spec.labels, Role: n.spec.role, Availability: n.spec.availability },
    Description: {
      Hostname: d.hostname,
      Platform: { Architecture: d.platform.architecture, OS: d.platform.os },
      Resources: { NanoCPUs: d.resources.nanoCpus, MemoryBytes: d.resources.memoryBytes },
      Engine: { EngineVersion: d.engine.engineVersion, ...(Object.keys(d.engine.labels).length > 0 ? { Labels: d.engine.labels } : {}), Plugins: d.engine.plugins.map((p) => ({ Type: p.type, Name: p.name })) },
      TLSInfo: toTlsInfo(tlsInfo),
    },
    Status: { State: n.status.state, ...(n.status.message !== '' ? { Message: n.status.message } : {}), Addr: n.status.addr },
    ...(view.manager !== undefined ? { ManagerStatus: { ...(view.manager.leader ? { Leader: true } : {}), Reachability: view.manager.reachability, Addr: n.managerAddr ?? '' } } : {}),
  };
}

export function toSwarmInfo(info: SwarmInfoView): SwarmInfo {
  return {
    NodeID: info.nodeId,
    NodeAddr: info.nodeAddr,
    LocalNodeState: info.localNodeState,
    ControlAvailable: info.controlAvailable,
    Error: info.error,
    RemoteManagers: info.remoteManagers === null ? null : info.remoteManagers.map((m) => ({ NodeID: m.nodeId, Addr: m.addr })),
    ...(info.nodes ? { Nodes: info.nodes } : {}),
    ...(info.managers ? { Managers: info.managers } : {}),
    ...(info.cluster !== undefined ? { Cluster: info.cluster === null ? emptyCluster() : toClusterInfo(info.cluster.cluster.value, info.cluster.cluster.version, info.cluster.tlsInfo) } : {}),
  };
}

/** What dockerd shows of a swarm it could not read (its zero ClusterInfo). */
function emptyCluster(): ClusterInfo {
  return {
    ID: '',
    Version: { Index: 0 },
    CreatedAt: '0001-01-01T00:00:00Z',
    UpdatedAt: '0001-01-01T00:00:00Z',
    Spec: { Name: '', Labels: {}, Orchestration: { TaskHistoryRetentionLimit: 0 }, Raft: { KeepOldSnapshots: 0, ElectionTick: 0, HeartbeatTick: 0 }, Dispatcher: {}, CAConfig: {}, TaskDefaults: {}, EncryptionConfig: { AutoLockManagers: false } },
    TLSInfo: { TrustRoot: '', CertIssuerSubject: '', CertIssuerPublicKey: '' },
    RootRotationInProgress: false,
    DefaultAddrPool: null,
    SubnetSize: 0,
    DataPathPort: 0,
  };
}

/** A secret as dockerd shows it: never its data. */
export function toSecret(view: ObjectView): Secret {
  const o = view.value;
  return { ID: o.id, Version: { Index: view.version }, CreatedAt: o.createdAt, UpdatedAt: o.updatedAt, Spec: { Name: o.spec.name, Labels: o.spec.labels, ...templating(o.spec.templating) } };
}

/** A config as dockerd shows it: with its data. */
export function toConfig(view: ObjectView): Config {
  const o = view.value;
  return { ID: o.id, Version: { Index: view.version }, CreatedAt: o.createdAt, UpdatedAt: o.updatedAt, Spec: { Name: o.spec.name, Labels: o.spec.labels, Data: o.data, ...templating(o.spec.templating) } };
}

function templating(t: { name: string; options: Record<string, string> } | undefined): { Templating?: { Name: string; Options?: Record<string, string> } } {
  return t === undefined ? {} : { Templating: { Name: t.name, ...(Object.keys(t.options).length > 0 ? { Options: t.options } : {}) } };
}
