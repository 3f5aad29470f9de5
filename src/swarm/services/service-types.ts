// A service's spec and a task's, as dockerd shows them (the API's ServiceSpec and TaskSpec,
// PascalCase, Go's omitempty fields optional): what a client sent, after the round trip through
// swarmkit's protobuf that dockerd makes it take (service-spec.ts), so that it comes back as
// dockerd would show it, and the agent reads the same fields.

export interface Mount {
  Type: 'bind' | 'volume' | 'tmpfs' | 'npipe';
  Source?: string;
  /** '' when the client left it out: only the node refuses that */
  Target: string;
  ReadOnly?: boolean;
  BindOptions?: { Propagation: 'rprivate' | 'private' | 'rshared' | 'shared' | 'rslave' | 'slave'; NonRecursive?: boolean };
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
  Privileges?: Privileges;
  Init?: boolean;
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
  Isolation: 'default' | 'process' | 'hyperv';
  Sysctls?: Record<string, string>;
  CapabilityAdd?: string[];
  CapabilityDrop?: string[];
  Ulimits?: Array<{ Name: string; Soft: number; Hard: number }>;
}

export interface Privileges {
  /** one of the three set */
  CredentialSpec: { Config: string; File: string; Registry: string } | null;
  SELinuxContext: { Disable: boolean; User: string; Role: string; Type: string; Level: string } | null;
}

export interface Resources {
  NanoCPUs?: number;
  MemoryBytes?: number;
}

export type GenericResource = { NamedResourceSpec: { Kind?: string; Value?: string } } | { DiscreteResourceSpec: { Kind?: string; Value?: number } };

export interface TaskSpec {
  /** every spec berth keeps has one: the container runtime is the only one it runs */
  ContainerSpec?: ContainerSpec;
  Resources?: { Limits?: Resources & { Pids?: number }; Reservations?: Resources & { GenericResources?: GenericResource[] } };
  RestartPolicy?: { Condition: 'none' | 'on-failure' | 'any'; Delay?: number; MaxAttempts: number; Window?: number };
  Placement?: { Constraints?: string[]; Preferences?: Array<{ Spread?: { SpreadDescriptor: string } }>; MaxReplicas?: number; Platforms?: Array<{ Architecture?: string; OS?: string }> };
  Networks?: NetworkAttachmentConfig[];
  LogDriver?: { Name?: string; Options?: Record<string, string> };
  ForceUpdate: number;
  /** a service's TaskTemplate says "container"; a task's Spec leaves it out */
  Runtime?: 'container';
}

export interface NetworkAttachmentConfig {
  Target: string;
  Aliases?: string[];
  DriverOpts?: Record<string, string>;
}

/** exactly one of the four */
export interface ServiceMode {
  Replicated?: { Replicas: number };
  Global?: Record<string, never>;
  ReplicatedJob?: { MaxConcurrent: number; TotalCompletions: number };
  GlobalJob?: Record<string, never>;
}

export interface UpdateConfig {
  Parallelism: number;
  /** nanoseconds */
  Delay?: number;
  FailureAction: 'pause' | 'continue' | 'rollback';
  /** nanoseconds */
  Monitor?: number;
  MaxFailureRatio: number;
  Order: 'stop-first' | 'start-first';
}

export interface PortConfig {
  Name?: string;
  Protocol: 'tcp' | 'udp' | 'sctp';
  TargetPort?: number;
  PublishedPort?: number;
  PublishMode: 'ingress' | 'host';
}

export interface EndpointSpec {
  Mode: 'vip' | 'dnsrr';
  Ports?: PortConfig[];
}

export interface ServiceSpec {
  Name: string;
  Labels: Record<string, string>;
  TaskTemplate: TaskSpec;
  Mode: ServiceMode;
  UpdateConfig?: UpdateConfig;
  RollbackConfig?: UpdateConfig;
  Networks?: NetworkAttachmentConfig[];
  EndpointSpec?: EndpointSpec;
}
