// The swarm's records as the API shows them (api/types/swarm.ts): Go's omitempty fields left out
// when zero, the root CA's TLSInfo beside the swarm and each node, never a key. A service's spec is
// stored as dockerd shows it, with only the fields it shows: here it is put in Go's field order.
import type { NodeView } from '../../../swarm/manager/node-control.js';
import type { SwarmView } from '../../../swarm/manager/cluster-control.js';
import type { SwarmInfo as SwarmInfoView } from '../../../swarm/swarm-service.js';
import type { TlsInfoView } from '../../../swarm/ca/swarm-ca.js';
import type { ClusterRecord, SwarmSpec as SpecRecord } from '../../../swarm/cluster/records.js';
import type { ClusterInfo, Config, NetworkAttachment, Node, Secret, Service, ServiceStatus, Swarm, SwarmInfo, SwarmNetwork, SwarmSpec, Task, TLSInfo } from '../../types/swarm.js';
import type { ObjectView } from '../../../swarm/objects/secret-control.js';
import type { ServiceRecord, TaskRecord } from '../../../swarm/services/service-records.js';
import type { SwarmNetworkRecord } from '../../../swarm/networks/network-records.js';
import type { ContainerSpec, EndpointSpec, FileTarget, Mount, PortConfig, ServiceSpec, TaskSpec, UpdateConfig } from '../../../swarm/services/service-types.js';

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

/** A service as dockerd 20.10 shows it; `status` only for GET /services?status=true at 1.41. */
export function serviceToApi(record: ServiceRecord, version: number, opts: { status?: ServiceStatus } = {}): Service {
  const { endpoint, updateStatus: update, jobStatus } = record;
  return {
    ID: record.id,
    Version: { Index: version },
    CreatedAt: record.createdAt,
    UpdatedAt: record.updatedAt,
    Spec: serviceSpec(record.spec),
    ...(record.previousSpec !== undefined ? { PreviousSpec: serviceSpec(record.previousSpec) } : {}),
    Endpoint: {
      Spec: endpoint.spec === undefined ? {} : endpointSpec(endpoint.spec),
      ...(endpoint.ports.length > 0 ? { Ports: endpoint.ports.map(port) } : {}),
      ...(endpoint.virtualIps.length > 0 ? { VirtualIPs: endpoint.virtualIps.map((v) => ({ NetworkID: v.networkId, Addr: v.addr })) } : {}),
    },
    ...(update !== undefined
      ? { UpdateStatus: { State: update.state, StartedAt: update.startedAt, ...(update.completedAt !== undefined ? { CompletedAt: update.completedAt } : {}), ...(update.message !== '' ? { Message: update.message } : {}) } }
      : {}),
    ...(opts.status !== undefined ? { ServiceStatus: { RunningTasks: opts.status.RunningTasks, DesiredTasks: opts.status.DesiredTasks, CompletedTasks: opts.status.CompletedTasks } } : {}),
    ...(jobStatus !== undefined ? { JobStatus: { JobIteration: iteration(jobStatus.iteration), LastExecution: jobStatus.lastExecution } } : {}),
  };
}

/** A task as dockerd 20.10 shows it; `networks`, its attachments, as the network area shows them. */
export function taskToApi(record: TaskRecord, version: number, opts: { networks?: NetworkAttachment[] } = {}): Task {
  const status = record.status;
  const container = status.containerStatus;
  return {
    ID: record.id,
    Version: { Index: version },
    CreatedAt: record.createdAt,
    UpdatedAt: record.updatedAt,
    Labels: {},
    Spec: taskSpec(record.spec, false),
    ...(record.serviceId !== '' ? { ServiceID: record.serviceId } : {}),
    ...(record.slot !== 0 ? { Slot: record.slot } : {}),
    ...(record.nodeId !== '' ? { NodeID: record.nodeId } : {}),
    Status: {
      Timestamp: status.timestamp,
      State: status.state,
      ...(status.message !== '' ? { Message: status.message } : {}),
      ...(status.err !== undefined && status.err !== '' ? { Err: status.err } : {}),
      ...(container !== undefined ? { ContainerStatus: { ContainerID: container.containerId, PID: container.pid, ExitCode: container.exitCode } } : {}),
      PortStatus: status.portStatus !== undefined && status.portStatus.length > 0 ? { Ports: status.portStatus.map(port) } : {},
    },
    DesiredState: record.desiredState,
    ...(opts.networks !== undefined && opts.networks.length > 0 ? { NetworksAttachments: opts.networks } : {}),
    ...(record.jobIteration !== undefined ? { JobIteration: iteration(record.jobIteration) } : {}),
  };
}

/** what swarmkit's allocator adds to a network's driver and IPAM options, as network-records.ts's networkView shows them */
const VXLAN_OPTION = 'com.docker.network.driver.overlay.vxlanid_list';
const SERIAL_IPAM_OPTION = 'com.docker.network.ipam.serial';

/** A task's networks as dockerd shows them: each network as it was when the task's address was given, and the address. */
export function networkAttachments(record: TaskRecord): NetworkAttachment[] {
  return (record.networks ?? []).map((a) => ({ Network: swarmNetwork(a.network, a.version), Addresses: a.addresses }));
}

/** A swarm network as swarmkit's object, which a task's attachment carries (not as the network area shows networks). */
function swarmNetwork(n: SwarmNetworkRecord, version: number): SwarmNetwork {
  const options = (o: Record<string, string>) => (Object.keys(o).length > 0 ? { Options: o } : {});
  const configs = (list: Array<{ Subnet: string; Range: string; Gateway: string }>) => {
    const shown = list.map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== '')));
    return shown.length > 0 ? { Configs: shown } : {};
  };
  const ipamOptions = n.spec.ipam.options;
  return {
    ID: n.id,
    Version: { Index: version },
    CreatedAt: n.createdAt,
    UpdatedAt: n.updatedAt,
    Spec: {
      Name: n.spec.name,
      Labels: n.spec.labels,
      DriverConfiguration: { Name: 'overlay', ...options(n.spec.options) },
      ...(n.spec.enableIPv6 ? { IPv6Enabled: true } : {}),
      ...(n.spec.internal ? { Internal: true } : {}),
      ...(n.spec.attachable ? { Attachable: true } : {}),
      ...(n.spec.ingress ? { Ingress: true } : {}),
      IPAMOptions: { Driver: { Name: 'default', ...options(n.spec.ipam.options) }, ...configs(n.spec.ipam.entries.map((e) => ({ Subnet: e.subnet, Range: e.ipRange, Gateway: e.gateway }))) },
      Scope: 'swarm',
    },
    DriverState: { Name: 'overlay', Options: { ...n.spec.options, [VXLAN_OPTION]: String(n.vxlanId) } },
    IPAMOptions: { Driver: { Name: 'default', ...options(Object.keys(ipamOptions).length > 0 ? { [SERIAL_IPAM_OPTION]: 'true', ...ipamOptions } : {}) }, ...configs(n.pools.map((p) => ({ Subnet: p.subnet, Range: p.ipRange ?? '', Gateway: p.gateway }))) },
  };
}

/** A swarm Version: Index left out while 0. */
function iteration(index: number): { Index?: number } {
  return index !== 0 ? { Index: index } : {};
}

function serviceSpec(s: ServiceSpec): ServiceSpec {
  return inOrder(s, ['Name', 'Labels', 'TaskTemplate', 'Mode', 'UpdateConfig', 'RollbackConfig', 'Networks', 'EndpointSpec'], {
    TaskTemplate: (t) => taskSpec(t, true),
    Mode: (m) => inOrder(m, ['Replicated', 'Global', 'ReplicatedJob', 'GlobalJob'], { ReplicatedJob: (j) => inOrder(j, ['MaxConcurrent', 'TotalCompletions']) }),
    UpdateConfig: updateConfig,
    RollbackConfig: updateConfig,
    Networks: (list) => list.map((n) => inOrder(n, ['Target', 'Aliases', 'DriverOpts'])),
    EndpointSpec: endpointSpec,
  });
}

/** A service's TaskTemplate says its Runtime; a task's Spec does not. */
function taskSpec(t: TaskSpec, withRuntime: boolean): TaskSpec {
  return inOrder(t, ['ContainerSpec', 'Resources', 'RestartPolicy', 'Placement', 'Networks', 'LogDriver', 'ForceUpdate', ...(withRuntime ? (['Runtime'] as const) : [])], {
    ContainerSpec: containerSpec,
    Resources: (r) =>
      inOrder(r, ['Limits', 'Reservations'], {
        Limits: (l) => inOrder(l, ['NanoCPUs', 'MemoryBytes', 'Pids']),
        Reservations: (l) => inOrder(l, ['NanoCPUs', 'MemoryBytes', 'GenericResources']),
      }),
    RestartPolicy: (r) => inOrder(r, ['Condition', 'Delay', 'MaxAttempts', 'Window']),
    Placement: (p) => inOrder(p, ['Constraints', 'Preferences', 'MaxReplicas', 'Platforms'], { Platforms: (list) => list.map((pl) => inOrder(pl, ['Architecture', 'OS'])) }),
    Networks: (list) => list.map((n) => inOrder(n, ['Target', 'Aliases', 'DriverOpts'])),
    LogDriver: (d) => inOrder(d, ['Name', 'Options']),
  });
}

function containerSpec(c: ContainerSpec): ContainerSpec {
  const fileTarget = (f: FileTarget): FileTarget => inOrder(f, ['Name', 'UID', 'GID', 'Mode']);
  return inOrder(
    c,
    ['Image', 'Labels', 'Command', 'Args', 'Hostname', 'Env', 'Dir', 'User', 'Groups', 'Privileges', 'Init', 'StopSignal', 'TTY', 'OpenStdin', 'ReadOnly', 'Mounts', 'StopGracePeriod', 'Healthcheck', 'Hosts', 'DNSConfig', 'Secrets', 'Configs', 'Isolation', 'Sysctls', 'CapabilityAdd', 'CapabilityDrop', 'Ulimits'],
    {
      Privileges: (p) =>
        inOrder(p, ['CredentialSpec', 'SELinuxContext'], {
          CredentialSpec: (cs) => inOrder(cs, ['Config', 'File', 'Registry']),
          SELinuxContext: (se) => inOrder(se, ['Disable', 'User', 'Role', 'Type', 'Level']),
        }),
      Mounts: (list) => list.map(mount),
      Healthcheck: (h) => inOrder(h, ['Test', 'Interval', 'Timeout', 'StartPeriod', 'Retries']),
      DNSConfig: (d) => inOrder(d, ['Nameservers', 'Search', 'Options']),
      // a reference without a file target never passes validation: dockerd would not show it
      Secrets: (list) => list.filter((s) => s.File !== undefined).map((s) => inOrder(s, ['File', 'SecretID', 'SecretName'], { File: fileTarget })),
      Configs: (list) => list.map((cf) => inOrder(cf, ['File', 'Runtime', 'ConfigID', 'ConfigName'], { File: fileTarget })),
      Ulimits: (list) => list.map((u) => inOrder(u, ['Name', 'Hard', 'Soft'])),
    },
  );
}

function mount(m: Mount): Mount {
  return inOrder(m, ['Type', 'Source', 'Target', 'ReadOnly', 'BindOptions', 'VolumeOptions', 'TmpfsOptions'], {
    // a mount the client gave no target: Go's omitempty
    Target: (t) => t || undefined,
    BindOptions: (b) => inOrder(b, ['Propagation', 'NonRecursive']),
    VolumeOptions: (v) => inOrder(v, ['NoCopy', 'Labels', 'DriverConfig'], { DriverConfig: (d) => inOrder(d, ['Name', 'Options']) }),
    TmpfsOptions: (t) => inOrder(t, ['SizeBytes', 'Mode']),
  });
}

function updateConfig(u: UpdateConfig): UpdateConfig {
  return inOrder(u, ['Parallelism', 'Delay', 'FailureAction', 'Monitor', 'MaxFailureRatio', 'Order']);
}

function endpointSpec(e: EndpointSpec): EndpointSpec {
  return inOrder(e, ['Mode', 'Ports'], { Ports: (list) => list.map(port) });
}

function port(p: PortConfig): PortConfig {
  return inOrder(p, ['Name', 'Protocol', 'TargetPort', 'PublishedPort', 'PublishMode']);
}

/**
 * The object's fields in Go's order, each through its writer if it has one, and without those
 * unset (the stored spec holds only the fields dockerd shows, so this is Go's omitempty).
 */
function inOrder<T extends object, K extends keyof T>(value: T, keys: readonly K[], writers: { [F in K]?: (v: NonNullable<T[F]>) => T[F] | undefined } = {}): T {
  const out: Partial<T> = {};
  for (const key of keys) {
    const v = value[key];
    if (v === undefined) continue;
    const written = v === null || writers[key] === undefined ? v : writers[key](v as NonNullable<T[K]>);
    if (written !== undefined) out[key] = written;
  }
  return out as T;
}
