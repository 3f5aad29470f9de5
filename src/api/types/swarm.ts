// Wire types of the Swarm and Node areas, with the spec's definition names and PascalCase fields,
// in the order dockerd 20.10 writes them; optional fields are Go's omitempty ones.

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
