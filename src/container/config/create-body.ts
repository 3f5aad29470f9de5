// Decoding of a POST /containers/create body into typed shapes, with the leniencies of dockerd's
// Go decoder: unknown fields are ignored, null leaves a value field unset, Cmd and Entrypoint may be
// a single string, and HostConfig fields may also sit at the top level (runconfig's
// ContainerConfigWrapper). A value of the wrong JSON type fails as Go's decoder does: a 500 with
// "json: cannot unmarshal ...", which is what dockerd answers.
import { EngineError, invalidParameter } from '../../errors.js';
import type { ContainerConfig, EndpointSettings, HostConfig, NetworkingConfig } from './types.js';

type Scalar = 'string' | 'bool' | 'int' | 'int64' | 'uint16' | 'uint32' | 'uint64';
export type FieldSpec =
  | Scalar
  | { ptr: Scalar } // a Go pointer: null means unset, and is kept as null
  | { list: Scalar | StructSpec }
  | { map: 'string' | 'empty' | 'stringList' }
  | { strslice: true } // strslice.StrSlice: a string or a list of strings
  | { pair: 'uint' } // ConsoleSize [2]uint
  | { struct: StructSpec } // null leaves it unset, for a Go pointer or value alike
  | 'raw'; // kept as given (IPAMConfig, DeviceRequests' nested lists)

export interface StructSpec {
  goName: string;
  fields: Record<string, FieldSpec>;
}

const healthConfig: StructSpec = {
  goName: 'HealthConfig',
  fields: { Test: { list: 'string' }, Interval: 'int64', Timeout: 'int64', StartPeriod: 'int64', Retries: 'int' },
};

export const containerConfigFields: Record<string, FieldSpec> = {
  Hostname: 'string',
  Domainname: 'string',
  User: 'string',
  AttachStdin: 'bool',
  AttachStdout: 'bool',
  AttachStderr: 'bool',
  ExposedPorts: { map: 'empty' },
  Tty: 'bool',
  OpenStdin: 'bool',
  StdinOnce: 'bool',
  Env: { list: 'string' },
  Cmd: { strslice: true },
  Healthcheck: { struct: healthConfig },
  ArgsEscaped: 'bool',
  Image: 'string',
  Volumes: { map: 'empty' },
  WorkingDir: 'string',
  Entrypoint: { strslice: true },
  NetworkDisabled: 'bool',
  MacAddress: 'string',
  OnBuild: { list: 'string' },
  Labels: { map: 'string' },
  StopSignal: 'string',
  StopTimeout: { ptr: 'int' },
  Shell: { strslice: true },
};

const throttleDevice: StructSpec = { goName: 'ThrottleDevice', fields: { Path: 'string', Rate: 'uint64' } };

const mount: StructSpec = {
  goName: 'Mount',
  fields: {
    Type: 'string',
    Source: 'string',
    Target: 'string',
    ReadOnly: 'bool',
    Consistency: 'string',
    BindOptions: { struct: { goName: 'BindOptions', fields: { Propagation: 'string', NonRecursive: 'bool' } } },
    VolumeOptions: {
      struct: {
        goName: 'VolumeOptions',
        fields: {
          NoCopy: 'bool',
          Labels: { map: 'string' },
          DriverConfig: { struct: { goName: 'Driver', fields: { Name: 'string', Options: { map: 'string' } } } },
        },
      },
    },
    TmpfsOptions: { struct: { goName: 'TmpfsOptions', fields: { SizeBytes: 'int64', Mode: 'uint32' } } },
  },
};

export const hostConfigFields: Record<string, FieldSpec> = {
  Binds: { list: 'string' },
  ContainerIDFile: 'string',
  LogConfig: { struct: { goName: 'LogConfig', fields: { Type: 'string', Config: { map: 'string' } } } },
  NetworkMode: 'string',
  PortBindings: { map: 'stringList' },
  RestartPolicy: { struct: { goName: 'RestartPolicy', fields: { Name: 'string', MaximumRetryCount: 'int' } } },
  AutoRemove: 'bool',
  VolumeDriver: 'string',
  VolumesFrom: { list: 'string' },
  Capabilities: { list: 'string' },
  CapAdd: { strslice: true },
  CapDrop: { strslice: true },
  CgroupnsMode: 'string',
  Dns: { list: 'string' },
  DnsOptions: { list: 'string' },
  DnsSearch: { list: 'string' },
  ExtraHosts: { list: 'string' },
  GroupAdd: { list: 'string' },
  IpcMode: 'string',
  Cgroup: 'string',
  Links: { list: 'string' },
  OomScoreAdj: 'int',
  PidMode: 'string',
  Privileged: 'bool',
  PublishAllPorts: 'bool',
  ReadonlyRootfs: 'bool',
  SecurityOpt: { list: 'string' },
  StorageOpt: { map: 'string' },
  Tmpfs: { map: 'string' },
  UTSMode: 'string',
  UsernsMode: 'string',
  ShmSize: 'int64',
  Sysctls: { map: 'string' },
  Runtime: 'string',
  ConsoleSize: { pair: 'uint' },
  Isolation: 'string',
  CpuShares: 'int64',
  Memory: 'int64',
  NanoCpus: 'int64',
  CgroupParent: 'string',
  BlkioWeight: 'uint16',
  BlkioWeightDevice: { list: { goName: 'WeightDevice', fields: { Path: 'string', Weight: 'uint16' } } },
  BlkioDeviceReadBps: { list: throttleDevice },
  BlkioDeviceWriteBps: { list: throttleDevice },
  BlkioDeviceReadIOps: { list: throttleDevice },
  BlkioDeviceWriteIOps: { list: throttleDevice },
  CpuPeriod: 'int64',
  CpuQuota: 'int64',
  CpuRealtimePeriod: 'int64',
  CpuRealtimeRuntime: 'int64',
  CpusetCpus: 'string',
  CpusetMems: 'string',
  Devices: {
    list: { goName: 'DeviceMapping', fields: { PathOnHost: 'string', PathInContainer: 'string', CgroupPermissions: 'string' } },
  },
  DeviceCgroupRules: { list: 'string' },
  DeviceRequests: {
    list: {
      goName: 'DeviceRequest',
      fields: { Driver: 'string', Count: 'int', DeviceIDs: { list: 'string' }, Capabilities: 'raw', Options: { map: 'string' } },
    },
  },
  KernelMemory: 'int64',
  KernelMemoryTCP: 'int64',
  MemoryReservation: 'int64',
  MemorySwap: 'int64',
  MemorySwappiness: { ptr: 'int64' },
  OomKillDisable: { ptr: 'bool' },
  PidsLimit: { ptr: 'int64' },
  Ulimits: { list: { goName: 'Ulimit', fields: { Name: 'string', Hard: 'int64', Soft: 'int64' } } },
  CpuCount: 'int64',
  CpuPercent: 'int64',
  IOMaximumIOps: 'uint64',
  IOMaximumBandwidth: 'uint64',
  Mounts: { list: mount },
  MaskedPaths: { list: 'string' },
  ReadonlyPaths: { list: 'string' },
  Init: { ptr: 'bool' },
};

const endpointSettings: StructSpec = {
  goName: 'EndpointSettings',
  fields: {
    IPAMConfig: {
      struct: { goName: 'EndpointIPAMConfig', fields: { IPv4Address: 'string', IPv6Address: 'string', LinkLocalIPs: { list: 'string' } } },
    },
    Links: { list: 'string' },
    Aliases: { list: 'string' },
    NetworkID: 'string',
    EndpointID: 'string',
    Gateway: 'string',
    IPAddress: 'string',
    IPPrefixLen: 'int',
    IPv6Gateway: 'string',
    GlobalIPv6Address: 'string',
    GlobalIPv6PrefixLen: 'int',
    MacAddress: 'string',
    DriverOpts: { map: 'string' },
  },
};

/** What the body holds after decoding; hostConfig is null when the body had none (dockerd skips its checks then). */
export interface DecodedCreateBody {
  config: ContainerConfig;
  hostConfig: HostConfig | null;
  networkingConfig: NetworkingConfig;
}

/** The legacy top-level HostConfig fields that still count when an inner HostConfig is given too. */
const carriedTopLevelFields = ['Memory', 'MemorySwap', 'CpuShares', 'CpusetCpus', 'VolumeDriver'] as const;

export function decodeCreateBody(body: unknown): DecodedCreateBody {
  if (body === null || body === undefined) throw configCannotBeEmpty();
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new EngineError('system', `json: cannot unmarshal ${jsonKind(body)} into Go value of type runconfig.ContainerConfigWrapper`);
  }
  const raw = body as Record<string, unknown>;
  const wrapper: StructSpec = { goName: 'ContainerConfigWrapper', fields: containerConfigFields };
  if (!Object.keys(containerConfigFields).some((k) => k in raw)) throw configCannotBeEmpty();
  const config = decodeStruct(raw, wrapper, '') as ContainerConfig;

  const topLevel = Object.keys(hostConfigFields).some((k) => k in raw)
    ? (decodeStruct(raw, { goName: 'ContainerConfigWrapper', fields: hostConfigFields }, '') as HostConfig)
    : null;
  const inner = isPresent(raw.HostConfig)
    ? (decodeStruct(expectObject(raw.HostConfig, 'ContainerConfigWrapper', 'HostConfig', 'container.HostConfig'), { goName: 'HostConfig', fields: hostConfigFields }, 'HostConfig') as HostConfig)
    : null;
  let hostConfig = inner ?? topLevel;
  if (inner && topLevel) {
    for (const k of carriedTopLevelFields) {
      if (topLevel[k] && !inner[k]) (inner as Record<string, unknown>)[k] = topLevel[k];
    }
    hostConfig = inner;
  }
  if (hostConfig && typeof raw.Cpuset === 'string' && raw.Cpuset !== '' && !hostConfig.CpusetCpus) hostConfig.CpusetCpus = raw.Cpuset;

  const networkingConfig: NetworkingConfig = {};
  if (isPresent(raw.NetworkingConfig)) {
    const nc = expectObject(raw.NetworkingConfig, 'ContainerConfigWrapper', 'NetworkingConfig', 'network.NetworkingConfig');
    if (isPresent(nc.EndpointsConfig)) {
      const eps = expectObject(nc.EndpointsConfig, 'NetworkingConfig', 'NetworkingConfig.EndpointsConfig', 'map[string]*network.EndpointSettings');
      const out: Record<string, never> = {};
      networkingConfig.EndpointsConfig = out;
      for (const [name, ep] of Object.entries(eps)) {
        (out as Record<string, unknown>)[name] =
          ep === null ? null : decodeStruct(expectObject(ep, 'NetworkingConfig', `NetworkingConfig.EndpointsConfig`, 'network.EndpointSettings'), endpointSettings, `NetworkingConfig.EndpointsConfig`);
      }
    }
  }
  return { config, hostConfig, networkingConfig };
}

/** Any other JSON body read as the Go struct goName with these fields, with the same leniencies and errors. */
export function decodeGoStruct(body: unknown, goName: string, fields: Record<string, FieldSpec>): Record<string, unknown> {
  if (body === null || body === undefined) return {};
  // a 400, as dockerd's exec create (httputils.ReadJSON) answers it
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidParameter(`json: cannot unmarshal ${jsonKind(body)} into Go value of type ${goName}`);
  try {
    // Go names a field by its struct's name without the package: ExecConfig.WorkingDir
    return decodeStruct(body as Record<string, unknown>, { goName: goName.slice(goName.lastIndexOf('.') + 1), fields }, '');
  } catch (err) {
    // a field of the wrong type is a 400 there too
    if (err instanceof EngineError && err.kind === 'system') throw invalidParameter(err.message);
    throw err;
  }
}

/** An EndpointSettings object as POST /networks/{id}/connect sends it (EndpointConfig); null for none. */
export function decodeEndpointSettings(value: unknown): EndpointSettings | null {
  if (!isPresent(value)) return null;
  return decodeStruct(expectObject(value, 'NetworkConnect', 'EndpointConfig', 'network.EndpointSettings'), endpointSettings, 'EndpointConfig') as EndpointSettings;
}

/**
 * The container config of a body that may leave it out (POST /commit's): undefined for no body or
 * one without a config field, as Go leaves the wrapper's embedded *Config nil then.
 */
export function decodeOptionalConfig(body: unknown): ContainerConfig | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'object' && !Array.isArray(body) && !Object.keys(containerConfigFields).some((k) => k in body)) return undefined;
  return decodeCreateBody(body).config;
}

function configCannotBeEmpty(): EngineError {
  return invalidParameter('Config cannot be empty in order to create a container');
}

function isPresent(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function decodeStruct(raw: Record<string, unknown>, spec: StructSpec, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    if (!(name in raw)) continue;
    const fieldPath = path ? `${path}.${name}` : name;
    const v = decodeField(raw[name], field, spec.goName, fieldPath);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

function decodeField(v: unknown, field: FieldSpec, owner: string, path: string): unknown {
  if (field === 'raw') return v;
  if (typeof field === 'string') return v === null ? undefined : decodeScalar(v, field, owner, path);
  if ('struct' in field) return v === null ? undefined : decodeStruct(expectObject(v, owner, path, field.struct.goName), field.struct, path);
  if ('ptr' in field) return v === null ? null : decodeScalar(v, field.ptr, owner, path);
  if (v === null) return null;
  if ('strslice' in field) {
    if (typeof v === 'string') return [v];
    return expectArray(v, owner, path, 'string').map((x) => decodeScalar(x, 'string', owner, path));
  }
  if ('list' in field) {
    const of = field.list;
    return expectArray(v, owner, path, typeof of === 'string' ? of : of.goName).map((x) =>
      typeof of === 'string' ? decodeScalar(x, of, owner, path) : x === null ? {} : decodeStruct(expectObject(x, owner, path, of.goName), of, path),
    );
  }
  if ('map' in field) {
    const obj = expectObject(v, owner, path, 'map[string]string');
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(obj)) {
      if (field.map === 'string') out[k] = x === null ? '' : decodeScalar(x, 'string', owner, path);
      else if (field.map === 'empty') out[k] = {};
      else out[k] = x === null ? null : expectArray(x, owner, path, 'nat.PortBinding').map((b) => decodeStruct(b === null ? {} : expectObject(b, owner, path, 'nat.PortBinding'), portBinding, path));
    }
    return out;
  }
  const arr = expectArray(v, owner, path, 'uint');
  return [0, 1].map((i) => (arr[i] === undefined || arr[i] === null ? 0 : decodeScalar(arr[i], 'uint32', owner, path, 'uint')));
}

const portBinding: StructSpec = { goName: 'PortBinding', fields: { HostIp: 'string', HostPort: 'string' } };

const intRanges: Record<Exclude<Scalar, 'string' | 'bool'>, [number, number]> = {
  int: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint16: [0, 0xffff],
  uint32: [0, 0xffffffff],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

function decodeScalar(v: unknown, t: Scalar, owner: string, path: string, goType: string = t): unknown {
  if (t === 'string') {
    if (typeof v !== 'string') throw typeError(v, owner, path, goType);
    return v;
  }
  if (t === 'bool') {
    if (typeof v !== 'boolean') throw typeError(v, owner, path, goType);
    return v;
  }
  if (typeof v !== 'number') throw typeError(v, owner, path, goType);
  const [min, max] = intRanges[t];
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new EngineError('system', `json: cannot unmarshal number ${v} into Go struct field ${owner}.${path} of type ${goType}`);
  }
  return v;
}

function expectArray(v: unknown, owner: string, path: string, goType: string): unknown[] {
  if (!Array.isArray(v)) throw typeError(v, owner, path, `[]${goType}`);
  return v;
}

function expectObject(v: unknown, owner: string, path: string, goType: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw typeError(v, owner, path, goType);
  return v as Record<string, unknown>;
}

function typeError(v: unknown, owner: string, path: string, goType: string): EngineError {
  return new EngineError('system', `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${owner}.${path} of type ${goType}`);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}
