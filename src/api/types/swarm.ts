// Wire types of the Swarm and Node areas, with the spec's definition names and PascalCase fields,
// in the order dockerd 20.10 writes them; optional fields are Go's omitempty ones. A service's and
// a task's spec are kept in their wire shape by the swarm area itself (service-types.ts).
import type { EndpointSpec, PortConfig, ServiceSpec, TaskSpec } from '../../swarm/services/service-types.js';

export interface ObjectVersion {
  Index: number;
}

export interface TLSInfo {
  TrustRoot: string;
  CertIssuerSubject: string;
  CertIssuerPublicKey: string;
}

export interface SwarmSpec {
  Name: string;
  Labels: Record<string, string>;
  Orchestration: { TaskHistoryRetentionLimit: number };
  Raft: { SnapshotInterval?: number; KeepOldSnapshots: number; LogEntriesForSlowFollowers?: number; ElectionTick: number; HeartbeatTick: number };
  Dispatcher: { HeartbeatPeriod?: number };
  CAConfig: { NodeCertExpiry?: number; ExternalCAs?: unknown[]; SigningCACert?: string; ForceRotate?: number };
  TaskDefaults: { LogDriver?: { Name: string; Options?: Record<string, string> } };
  EncryptionConfig: { AutoLockManagers: boolean };
}

export interface ClusterInfo {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: SwarmSpec;
  TLSInfo: TLSInfo;
  RootRotationInProgress: boolean;
  DefaultAddrPool: string[] | null;
  SubnetSize: number;
  DataPathPort: number;
}

export interface Swarm extends ClusterInfo {
  JoinTokens: { Worker: string; Manager: string };
}

export interface SwarmInfo {
  NodeID: string;
  NodeAddr: string;
  LocalNodeState: 'inactive' | 'pending' | 'active' | 'error' | 'locked';
  ControlAvailable: boolean;
  Error: string;
  RemoteManagers: Array<{ NodeID: string; Addr: string }> | null;
  Nodes?: number;
  Managers?: number;
  Cluster?: ClusterInfo;
}

export interface Node {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: { Name?: string; Labels: Record<string, string>; Role: string; Availability: string };
  Description: {
    Hostname: string;
    Platform: { Architecture: string; OS: string };
    Resources: { NanoCPUs: number; MemoryBytes: number };
    Engine: { EngineVersion: string; Labels?: Record<string, string>; Plugins: Array<{ Type: string; Name: string }> };
    TLSInfo: TLSInfo;
  };
  Status: { State: string; Message?: string; Addr: string };
  ManagerStatus?: { Leader?: boolean; Reachability: string; Addr: string };
}

export interface Driver {
  Name: string;
  Options?: Record<string, string>;
}

export interface Secret {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: { Name: string; Labels: Record<string, string>; Templating?: Driver };
}

export interface Config {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: { Name: string; Labels: Record<string, string>; Data: string; Templating?: Driver };
}

/** The counts of GET /services?status=true (1.41). */
export interface ServiceStatus {
  RunningTasks: number;
  DesiredTasks: number;
  CompletedTasks: number;
}

export interface EndpointVirtualIP {
  NetworkID: string;
  Addr: string;
}

export interface Service {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: ServiceSpec;
  PreviousSpec?: ServiceSpec;
  /** Spec is {} for a service without an EndpointSpec */
  Endpoint: { Spec: EndpointSpec | Record<string, never>; Ports?: PortConfig[]; VirtualIPs?: EndpointVirtualIP[] };
  UpdateStatus?: { State: string; StartedAt?: string; CompletedAt?: string; Message?: string };
  ServiceStatus?: ServiceStatus;
  /** jobs: the iteration's Index is left out while 0 */
  JobStatus?: { JobIteration: { Index?: number }; LastExecution: string };
}

/** A swarm network as a task's attachment carries it (the copy made when the task was allocated). */
export interface SwarmNetwork {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: {
    Name: string;
    Labels: Record<string, string>;
    DriverConfiguration?: Driver | Record<string, never>;
    IPv6Enabled?: boolean;
    Internal?: boolean;
    Attachable?: boolean;
    Ingress?: boolean;
    IPAMOptions?: IPAMOptions;
    Scope?: string;
  };
  DriverState: Driver | Record<string, never>;
  IPAMOptions?: IPAMOptions;
}

export interface IPAMOptions {
  Driver: Driver | Record<string, never>;
  Configs?: Array<{ Subnet?: string; Range?: string; Gateway?: string }>;
}

export interface NetworkAttachment {
  Network: SwarmNetwork;
  Addresses?: string[];
}

export interface Task {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
  /** a task has no name; its Labels are {} */
  Labels: Record<string, string>;
  /** the service's TaskTemplate it was made from, without Runtime */
  Spec: TaskSpec;
  ServiceID?: string;
  /** none for a global service's task */
  Slot?: number;
  NodeID?: string;
  Status: {
    Timestamp: string;
    State: string;
    Message?: string;
    Err?: string;
    ContainerStatus?: { ContainerID: string; PID: number; ExitCode: number };
    PortStatus: { Ports?: PortConfig[] };
  };
  DesiredState: string;
  NetworksAttachments?: NetworkAttachment[];
  JobIteration?: { Index?: number };
}
