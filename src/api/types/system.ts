// Wire types of the System area, with the spec's definition names and PascalCase fields.
import type { SwarmInfo } from './swarm.js';

export interface ComponentVersion {
  Name: string;
  Version: string;
  Details?: Record<string, string>;
}

export interface SystemVersion {
  Platform: { Name: string };
  Components: ComponentVersion[];
  Version: string;
  ApiVersion: string;
  MinAPIVersion: string;
  GitCommit: string;
  GoVersion: string;
  Os: string;
  Arch: string;
  KernelVersion: string;
  Experimental?: boolean;
  BuildTime: string;
}

export interface Commit {
  ID: string;
  Expected: string;
}

export interface SystemInfo {
  ID: string;
  Containers: number;
  ContainersRunning: number;
  ContainersPaused: number;
  ContainersStopped: number;
  Images: number;
  Driver: string;
  DriverStatus: Array<[string, string]>;
  Plugins: { Volume: string[]; Network: string[]; Authorization: string[] | null; Log: string[] };
  MemoryLimit: boolean;
  SwapLimit: boolean;
  KernelMemory: boolean;
  KernelMemoryTCP: boolean;
  CpuCfsPeriod: boolean;
  CpuCfsQuota: boolean;
  CPUShares: boolean;
  CPUSet: boolean;
  PidsLimit: boolean;
  IPv4Forwarding: boolean;
  BridgeNfIptables: boolean;
  BridgeNfIp6tables: boolean;
  Debug: boolean;
  NFd: number;
  OomKillDisable: boolean;
  SystemTime: string;
  LoggingDriver: string;
  CgroupDriver: string;
  CgroupVersion: string;
  NEventsListener: number;
  KernelVersion: string;
  OperatingSystem: string;
  OSVersion: string;
  OSType: string;
  Architecture: string;
  IndexServerAddress: string;
  RegistryConfig: {
    AllowNondistributableArtifactsCIDRs: string[];
    AllowNondistributableArtifactsHostnames: string[];
    InsecureRegistryCIDRs: string[];
    IndexConfigs: Record<string, { Name: string; Mirrors: string[]; Secure: boolean; Official: boolean }>;
    Mirrors: string[];
  };
  NCPU: number;
  MemTotal: number;
  GenericResources: null;
  DockerRootDir: string;
  HttpProxy: string;
  HttpsProxy: string;
  NoProxy: string;
  Name: string;
  Labels: string[];
  ExperimentalBuild: boolean;
  ServerVersion: string;
  Runtimes: Record<string, { path: string }>;
  DefaultRuntime: string;
  Swarm: SwarmInfo;
  LiveRestoreEnabled: boolean;
  Isolation: string;
  InitBinary: string;
  ContainerdCommit: Commit;
  RuncCommit: Commit;
  InitCommit: Commit;
  SecurityOptions: string[];
  Warnings: string[] | null;
}

export interface EventActor {
  ID: string;
  Attributes: Record<string, string>;
}

/** One line of GET /events, with the legacy status/id/from fields dockerd still sends. */
export interface EventMessage {
  status?: string;
  id?: string;
  from?: string;
  Type: string;
  Action: string;
  Actor: EventActor;
  scope: string;
  time: number;
  /** Nanoseconds since the epoch: beyond a double's precision, so kept as a bigint. */
  timeNano: bigint;
}
