// A service's spec and a task's, as clients send them and dockerd shows them (the API's
// ServiceSpec and TaskSpec, PascalCase, Go's omitempty fields optional). The store keeps them in
// this shape: what a client sent comes back as it sent it, and the agent reads the same fields.

export interface Mount {
  Type: 'bind' | 'volume' | 'tmpfs' | 'npipe';
  Source?: string;
  Target: string;
  ReadOnly?: boolean;
  Consistency?: string;
  BindOptions?: { Propagation?: string; NonRecursive?: boolean };
  VolumeOptions?: { NoCopy?: boolean; Labels?: Record<string, string>; DriverConfig?: { Name?: string; Options?: Record<string, string> } };
  TmpfsOptions?: { SizeBytes?: number; Mode?: number };
}

export interface FileTarget {
  Name: string;
  UID: string;
  GID: string;
  Mode: number;
}

export interface SecretReference {
  File?: FileTarget;
  SecretID: string;
  SecretName: string;
}

export interface ConfigReference {
  File?: FileTarget;
  Runtime?: Record<string, never>;
  ConfigID: string;
  ConfigName: string;
}

export interface ContainerSpec {
  Image: string;
  Labels?: Record<string, string>;
  Command?: string[];
  Args?: string[];
  Hostname?: string;
  Env?: string[];
  Dir?: string;
  User?: string;
  Groups?: string[];
  Privileges?: unknown;
  Init?: boolean | null;
  StopSignal?: string;
  TTY?: boolean;
  OpenStdin?: boolean;
  ReadOnly?: boolean;
  Mounts?: Mount[];
  /** nanoseconds */
  StopGracePeriod?: number;
  Healthcheck?: { Test?: string[]; Interval?: number; Timeout?: number; Retries?: number; StartPeriod?: number };
  /** "IP host…" lines, as swarmkit keeps them */
  Hosts?: string[];
  DNSConfig?: { Nameservers?: string[]; Search?: string[]; Options?: string[] };
  Secrets?: SecretReference[];
  Configs?: ConfigReference[];
  Isolation?: string;
  Sysctls?: Record<string, string>;
  CapabilityAdd?: string[];
  CapabilityDrop?: string[];
  Ulimits?: Array<{ Name: string; Soft: number; Hard: number }>;
}

export interface Resources {
  NanoCPUs?: number;
  MemoryBytes?: number;
}

export interface TaskSpec {
  ContainerSpec?: ContainerSpec;
  PluginSpec?: unknown;
  NetworkAttachmentSpec?: unknown;
  Resources?: { Limits?: Resources & { Pids?: number }; Reservations?: Resources & { GenericResources?: unknown[] } };
  RestartPolicy?: { Condition?: 'none' | 'on-failure' | 'any'; Delay?: number; MaxAttempts?: number; Window?: number };
  Placement?: { Constraints?: string[]; Preferences?: Array<{ Spread?: { SpreadDescriptor: string } }>; MaxReplicas?: number; Platforms?: Array<{ Architecture?: string; OS?: string }> };
  Networks?: NetworkAttachmentConfig[];
  LogDriver?: { Name: string; Options?: Record<string, string> };
  ForceUpdate: number;
  Runtime?: string;
}

export interface NetworkAttachmentConfig {
  Target: string;
  Aliases?: string[];
  DriverOpts?: Record<string, string>;
}

export interface ServiceMode {
  Replicated?: { Replicas?: number };
  Global?: Record<string, never>;
  ReplicatedJob?: { MaxConcurrent?: number; TotalCompletions?: number };
  GlobalJob?: Record<string, never>;
}

export interface UpdateConfig {
  Parallelism: number;
  /** nanoseconds */
  Delay?: number;
  FailureAction?: 'pause' | 'continue' | 'rollback';
  /** nanoseconds */
  Monitor?: number;
  MaxFailureRatio: number;
  Order?: 'stop-first' | 'start-first';
}

export interface PortConfig {
  Name?: string;
  Protocol?: 'tcp' | 'udp' | 'sctp';
  TargetPort?: number;
  PublishedPort?: number;
  PublishMode?: 'ingress' | 'host';
}

export interface EndpointSpec {
  Mode?: 'vip' | 'dnsrr';
  Ports?: PortConfig[];
}

export interface ServiceSpec {
  Name: string;
  Labels?: Record<string, string>;
  TaskTemplate: TaskSpec;
  Mode: ServiceMode;
  UpdateConfig?: UpdateConfig;
  RollbackConfig?: UpdateConfig;
  Networks?: NetworkAttachmentConfig[];
  EndpointSpec?: EndpointSpec;
}
