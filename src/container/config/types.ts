// Docker's own data definitions for a container's configuration (ContainerConfig, HostConfig and
// their parts, API 1.41). dockerd keeps these shapes as they are, in its records and in inspect;
// so does berth: the create body is normalized into them once (normalize-create.ts), stored, and
// shown back. Every field is optional as it arrives; after normalization the defaults are filled
// as dockerd fills them.

export interface HealthConfig {
  Test?: string[] | null;
  Interval?: number;
  Timeout?: number;
  Retries?: number;
  StartPeriod?: number;
}

export interface ContainerConfig {
  Hostname?: string;
  Domainname?: string;
  User?: string;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  ExposedPorts?: Record<string, Record<string, never>> | null;
  Tty?: boolean;
  OpenStdin?: boolean;
  StdinOnce?: boolean;
  Env?: string[] | null;
  Cmd?: string[] | null;
  Healthcheck?: HealthConfig;
  ArgsEscaped?: boolean;
  Image?: string;
  Volumes?: Record<string, Record<string, never>> | null;
  WorkingDir?: string;
  Entrypoint?: string[] | null;
  NetworkDisabled?: boolean;
  MacAddress?: string;
  OnBuild?: string[] | null;
  Labels?: Record<string, string> | null;
  StopSignal?: string;
  StopTimeout?: number | null;
  Shell?: string[] | null;
}

export interface ThrottleDevice {
  Path: string;
  Rate: number;
}

export interface WeightDevice {
  Path: string;
  Weight: number;
}

export interface DeviceMapping {
  PathOnHost: string;
  PathInContainer: string;
  CgroupPermissions: string;
}

export interface DeviceRequest {
  Driver?: string;
  Count?: number;
  DeviceIDs?: string[] | null;
  Capabilities?: string[][] | null;
  Options?: Record<string, string> | null;
}

export interface Ulimit {
  Name: string;
  Soft: number;
  Hard: number;
}

export interface Resources {
  CpuShares?: number;
  Memory?: number;
  CgroupParent?: string;
  BlkioWeight?: number;
  BlkioWeightDevice?: WeightDevice[] | null;
  BlkioDeviceReadBps?: ThrottleDevice[] | null;
  BlkioDeviceWriteBps?: ThrottleDevice[] | null;
  BlkioDeviceReadIOps?: ThrottleDevice[] | null;
  BlkioDeviceWriteIOps?: ThrottleDevice[] | null;
  CpuPeriod?: number;
  CpuQuota?: number;
  CpuRealtimePeriod?: number;
  CpuRealtimeRuntime?: number;
  CpusetCpus?: string;
  CpusetMems?: string;
  Devices?: DeviceMapping[] | null;
  DeviceCgroupRules?: string[] | null;
  DeviceRequests?: DeviceRequest[] | null;
  KernelMemory?: number;
  KernelMemoryTCP?: number;
  MemoryReservation?: number;
  MemorySwap?: number;
  MemorySwappiness?: number | null;
  NanoCpus?: number;
  OomKillDisable?: boolean | null;
  Init?: boolean | null;
  PidsLimit?: number | null;
  Ulimits?: Ulimit[] | null;
  CpuCount?: number;
  CpuPercent?: number;
  IOMaximumIOps?: number;
  IOMaximumBandwidth?: number;
}

export interface RestartPolicy {
  Name?: '' | 'no' | 'always' | 'unless-stopped' | 'on-failure';
  MaximumRetryCount?: number;
}

export interface PortBinding {
  HostIp?: string;
  HostPort?: string;
}

export interface Mount {
  Target?: string;
  Source?: string;
  Type?: 'bind' | 'volume' | 'tmpfs' | 'npipe';
  ReadOnly?: boolean;
  Consistency?: string;
  BindOptions?: { Propagation?: string; NonRecursive?: boolean };
  VolumeOptions?: {
    NoCopy?: boolean;
    Labels?: Record<string, string>;
    DriverConfig?: { Name?: string; Options?: Record<string, string> };
  };
  TmpfsOptions?: { SizeBytes?: number; Mode?: number };
}

export interface LogConfig {
  Type?: string;
  Config?: Record<string, string>;
}

export interface HostConfig extends Resources {
  Binds?: string[] | null;
  ContainerIDFile?: string;
  LogConfig?: LogConfig;
  NetworkMode?: string;
  PortBindings?: Record<string, PortBinding[] | null> | null;
  RestartPolicy?: RestartPolicy;
  AutoRemove?: boolean;
  VolumeDriver?: string;
  VolumesFrom?: string[] | null;
  Mounts?: Mount[] | null;
  /** API 1.40 only: the complete capability set, instead of CapAdd/CapDrop. */
  Capabilities?: string[] | null;
  CapAdd?: string[] | null;
  CapDrop?: string[] | null;
  CgroupnsMode?: '' | 'private' | 'host';
  Dns?: string[] | null;
  DnsOptions?: string[] | null;
  DnsSearch?: string[] | null;
  ExtraHosts?: string[] | null;
  GroupAdd?: string[] | null;
  IpcMode?: string;
  Cgroup?: string;
  Links?: string[] | null;
  OomScoreAdj?: number;
  PidMode?: string;
  Privileged?: boolean;
  PublishAllPorts?: boolean;
  ReadonlyRootfs?: boolean;
  SecurityOpt?: string[] | null;
  StorageOpt?: Record<string, string> | null;
  Tmpfs?: Record<string, string> | null;
  UTSMode?: string;
  UsernsMode?: string;
  ShmSize?: number;
  Sysctls?: Record<string, string> | null;
  Runtime?: string;
  ConsoleSize?: [number, number] | number[];
  Isolation?: string;
  MaskedPaths?: string[] | null;
  ReadonlyPaths?: string[] | null;
}

export interface EndpointSettings {
  IPAMConfig?: Record<string, unknown> | null;
  Links?: string[] | null;
  Aliases?: string[] | null;
  NetworkID?: string;
  EndpointID?: string;
  Gateway?: string;
  IPAddress?: string;
  IPPrefixLen?: number;
  IPv6Gateway?: string;
  GlobalIPv6Address?: string;
  GlobalIPv6PrefixLen?: number;
  MacAddress?: string;
  DriverOpts?: Record<string, string> | null;
}

export interface NetworkingConfig {
  EndpointsConfig?: Record<string, EndpointSettings> | null;
}
