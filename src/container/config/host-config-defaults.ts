// The defaults dockerd 20.10 fills into a new container's configuration, and the shapes inspect
// shows them in: every field in Go's order, null for an empty list or map, and the omitempty fields
// left out when empty. Checked field by field against the reference's inspect for a minimal and a
// full body at 1.25, 1.40 and 1.41.
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS, DEFAULT_SHM_SIZE_BYTES } from '../../runtime/oci-spec.js';
import type { CreateBehaviours } from './create-behaviours.js';
import type { ContainerConfig, HealthConfig, HostConfig, Mount } from './types.js';

/**
 * What postContainersCreate changes by API version, before any check. Only a HostConfig the body
 * gave is touched, as in dockerd (a body without one keeps IpcMode "private" at 1.25).
 */
export function adjustForApiVersion(hc: HostConfig, api: CreateBehaviours): void {
  if (!api.has('bindNonRecursiveOption')) {
    for (const m of hc.Mounts ?? []) if (m.BindOptions) delete m.BindOptions.NonRecursive;
  }
  if (!api.has('kernelMemoryTcpField')) hc.KernelMemoryTCP = 0;
  if (api.has('defaultIpcModeShareable') && !hc.IpcMode) hc.IpcMode = 'shareable';
  // 0, -1 and any other negative value mean unlimited, at every version
  if (hc.PidsLimit != null && hc.PidsLimit <= 0) hc.PidsLimit = null;
}

/** dockerd's adaptContainerSettings and the defaults create fills after it. */
export function fillHostConfigDefaults(hc: HostConfig, cgroupVersion: '1' | '2'): void {
  if ((hc.Memory ?? 0) > 0 && !hc.MemorySwap) hc.MemorySwap = hc.Memory! * 2;
  if (!hc.ShmSize) hc.ShmSize = DEFAULT_SHM_SIZE_BYTES;
  if (!hc.IpcMode) hc.IpcMode = 'private';
  if (!hc.CgroupnsMode) hc.CgroupnsMode = cgroupVersion === '2' ? 'private' : 'host';
  if (hc.IpcMode === 'host' || hc.PidMode === 'host' || hc.Privileged) hc.SecurityOpt = [...(hc.SecurityOpt ?? []), 'label=disable'];
  if (hc.OomKillDisable == null) hc.OomKillDisable = false;
  if (!hc.Privileged) {
    if (hc.MaskedPaths == null) hc.MaskedPaths = [...DEFAULT_MASKED_PATHS];
    if (hc.ReadonlyPaths == null) hc.ReadonlyPaths = [...DEFAULT_READONLY_PATHS];
  }
  if (!hc.NetworkMode) hc.NetworkMode = 'default';
}

const list = <T>(v: T[] | null | undefined): T[] | null => v ?? null;
const map = <T>(v: Record<string, T> | null | undefined): Record<string, T> | null => v ?? null;
const omitEmptyMap = <T>(v: Record<string, T> | null | undefined) => (v && Object.keys(v).length ? v : undefined);
const omitEmptyList = <T>(v: T[] | null | undefined) => (v?.length ? v : undefined);

/** The object without its undefined fields, which stand for Go's omitempty. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** HostConfig as inspect shows it. */
export function shapeHostConfig(hc: HostConfig): HostConfig {
  return defined({
    Binds: list(hc.Binds),
    ContainerIDFile: hc.ContainerIDFile ?? '',
    LogConfig: { Type: hc.LogConfig?.Type ?? '', Config: hc.LogConfig?.Config ?? {} },
    NetworkMode: hc.NetworkMode ?? '',
    PortBindings: hc.PortBindings
      ? Object.fromEntries(Object.entries(hc.PortBindings).map(([k, v]) => [k, v && v.map((b) => ({ HostIp: b.HostIp ?? '', HostPort: b.HostPort ?? '' }))]))
      : null,
    RestartPolicy: { Name: hc.RestartPolicy?.Name ?? '', MaximumRetryCount: hc.RestartPolicy?.MaximumRetryCount ?? 0 },
    AutoRemove: hc.AutoRemove ?? false,
    VolumeDriver: hc.VolumeDriver ?? '',
    VolumesFrom: list(hc.VolumesFrom),
    Capabilities: hc.Capabilities ?? undefined,
    CapAdd: list(hc.CapAdd),
    CapDrop: list(hc.CapDrop),
    CgroupnsMode: hc.CgroupnsMode ?? '',
    Dns: list(hc.Dns),
    DnsOptions: list(hc.DnsOptions),
    DnsSearch: list(hc.DnsSearch),
    ExtraHosts: list(hc.ExtraHosts),
    GroupAdd: list(hc.GroupAdd),
    IpcMode: hc.IpcMode ?? '',
    Cgroup: hc.Cgroup ?? '',
    Links: list(hc.Links),
    OomScoreAdj: hc.OomScoreAdj ?? 0,
    PidMode: hc.PidMode ?? '',
    Privileged: hc.Privileged ?? false,
    PublishAllPorts: hc.PublishAllPorts ?? false,
    ReadonlyRootfs: hc.ReadonlyRootfs ?? false,
    SecurityOpt: list(hc.SecurityOpt),
    StorageOpt: omitEmptyMap(hc.StorageOpt),
    Tmpfs: omitEmptyMap(hc.Tmpfs),
    UTSMode: hc.UTSMode ?? '',
    UsernsMode: hc.UsernsMode ?? '',
    ShmSize: hc.ShmSize ?? 0,
    Sysctls: omitEmptyMap(hc.Sysctls),
    Runtime: hc.Runtime || undefined,
    ConsoleSize: hc.ConsoleSize ?? [0, 0],
    Isolation: hc.Isolation ?? '',
    CpuShares: hc.CpuShares ?? 0,
    Memory: hc.Memory ?? 0,
    NanoCpus: hc.NanoCpus ?? 0,
    CgroupParent: hc.CgroupParent ?? '',
    BlkioWeight: hc.BlkioWeight ?? 0,
    BlkioWeightDevice: list(hc.BlkioWeightDevice),
    BlkioDeviceReadBps: list(hc.BlkioDeviceReadBps),
    BlkioDeviceWriteBps: list(hc.BlkioDeviceWriteBps),
    BlkioDeviceReadIOps: list(hc.BlkioDeviceReadIOps),
    BlkioDeviceWriteIOps: list(hc.BlkioDeviceWriteIOps),
    CpuPeriod: hc.CpuPeriod ?? 0,
    CpuQuota: hc.CpuQuota ?? 0,
    CpuRealtimePeriod: hc.CpuRealtimePeriod ?? 0,
    CpuRealtimeRuntime: hc.CpuRealtimeRuntime ?? 0,
    CpusetCpus: hc.CpusetCpus ?? '',
    CpusetMems: hc.CpusetMems ?? '',
    Devices: list(hc.Devices),
    DeviceCgroupRules: list(hc.DeviceCgroupRules),
    DeviceRequests: hc.DeviceRequests
      ? hc.DeviceRequests.map((d) => ({ Driver: d.Driver ?? '', Count: d.Count ?? 0, DeviceIDs: list(d.DeviceIDs), Capabilities: list(d.Capabilities), Options: map(d.Options) }))
      : null,
    KernelMemory: hc.KernelMemory ?? 0,
    KernelMemoryTCP: hc.KernelMemoryTCP ?? 0,
    MemoryReservation: hc.MemoryReservation ?? 0,
    MemorySwap: hc.MemorySwap ?? 0,
    MemorySwappiness: hc.MemorySwappiness ?? null,
    OomKillDisable: hc.OomKillDisable ?? null,
    PidsLimit: hc.PidsLimit ?? null,
    Ulimits: hc.Ulimits ? hc.Ulimits.map((u) => ({ Name: u.Name ?? '', Hard: u.Hard ?? 0, Soft: u.Soft ?? 0 })) : null,
    CpuCount: hc.CpuCount ?? 0,
    CpuPercent: hc.CpuPercent ?? 0,
    IOMaximumIOps: hc.IOMaximumIOps ?? 0,
    IOMaximumBandwidth: hc.IOMaximumBandwidth ?? 0,
    Mounts: omitEmptyList(hc.Mounts)?.map(shapeMount),
    MaskedPaths: list(hc.MaskedPaths),
    ReadonlyPaths: list(hc.ReadonlyPaths),
    Init: hc.Init ?? undefined,
  });
}

function shapeMount(m: Mount): Mount {
  const bind = m.BindOptions && defined({ Propagation: m.BindOptions.Propagation || undefined, NonRecursive: m.BindOptions.NonRecursive || undefined });
  const driver = m.VolumeOptions?.DriverConfig;
  const volume = m.VolumeOptions && defined({
    NoCopy: m.VolumeOptions.NoCopy || undefined,
    Labels: omitEmptyMap(m.VolumeOptions.Labels),
    DriverConfig: driver && defined({ Name: driver.Name || undefined, Options: omitEmptyMap(driver.Options) }),
  });
  const tmpfs = m.TmpfsOptions && defined({ SizeBytes: m.TmpfsOptions.SizeBytes || undefined, Mode: m.TmpfsOptions.Mode || undefined });
  return defined({
    Type: m.Type || undefined,
    Source: m.Source || undefined,
    Target: m.Target || undefined,
    ReadOnly: m.ReadOnly || undefined,
    Consistency: m.Consistency || undefined,
    BindOptions: bind,
    VolumeOptions: volume,
    TmpfsOptions: tmpfs,
  });
}

/** ContainerConfig as inspect shows it. Hostname stays '' for the service to fill from the ID. */
export function shapeConfig(c: ContainerConfig): ContainerConfig {
  return defined({
    Hostname: c.Hostname ?? '',
    Domainname: c.Domainname ?? '',
    User: c.User ?? '',
    AttachStdin: c.AttachStdin ?? false,
    AttachStdout: c.AttachStdout ?? false,
    AttachStderr: c.AttachStderr ?? false,
    ExposedPorts: omitEmptyMap(c.ExposedPorts),
    Tty: c.Tty ?? false,
    OpenStdin: c.OpenStdin ?? false,
    StdinOnce: c.StdinOnce ?? false,
    Env: list(c.Env),
    Cmd: list(c.Cmd),
    Healthcheck: c.Healthcheck && shapeHealthcheck(c.Healthcheck),
    ArgsEscaped: c.ArgsEscaped || undefined,
    Image: c.Image ?? '',
    Volumes: map(c.Volumes),
    WorkingDir: c.WorkingDir ?? '',
    Entrypoint: list(c.Entrypoint),
    NetworkDisabled: c.NetworkDisabled || undefined,
    MacAddress: c.MacAddress || undefined,
    OnBuild: list(c.OnBuild),
    Labels: map(c.Labels),
    StopSignal: c.StopSignal || undefined,
    StopTimeout: c.StopTimeout ?? undefined,
    Shell: omitEmptyList(c.Shell),
  });
}

function shapeHealthcheck(h: HealthConfig): HealthConfig {
  return defined({
    Test: omitEmptyList(h.Test),
    Interval: h.Interval || undefined,
    Timeout: h.Timeout || undefined,
    StartPeriod: h.StartPeriod || undefined,
    Retries: h.Retries || undefined,
  });
}
