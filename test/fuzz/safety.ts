// What the fuzzer may not send, because the daemon under fuzz would carry it out on the host: it
// runs as root, and a fuzzed container that starts with the host's root bound in could do anything.
// berthd runs in a network namespace of its own with only loopback (so pulls, pushes, remote build
// contexts and logins reach nothing), with legacy plugins looked up in an empty folder of its own
// (--plugins-dir), and on a data root of its own. What is left is taken out of every generated body
// here, after the mutations, at any depth and in any case (Go's JSON decoder matches field names
// case-insensitively, and so does berth where dockerd does).

/**
 * Fields dropped wherever they are: host paths bound or mounted into a container, devices,
 * privileges, the host's namespaces, cgroups and kernel settings, a volume's device mount.
 */
const DENIED_FIELDS = new Set(
  [
    'Binds', 'Mounts', 'Devices', 'DeviceRequests', 'DeviceCgroupRules', 'Privileged', 'CapAdd', 'Capabilities', 'SecurityOpt',
    'PidMode', 'IpcMode', 'UTSMode', 'UsernsMode', 'CgroupnsMode', 'Cgroup', 'CgroupParent', 'VolumesFrom', 'VolumeDriver',
    'Sysctls', 'Runtime', 'MaskedPaths', 'ReadonlyPaths', 'LogConfig',
    // a local volume's DriverOpts: without a device, type and o are refused before any mount
    'device',
  ].map((f) => f.toLowerCase()),
);

/** The value without the denied fields (in place; the value is the request's own copy). */
export function withoutHostAccess(value: unknown): unknown {
  if (Array.isArray(value)) value.forEach(withoutHostAccess);
  else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (DENIED_FIELDS.has(key.toLowerCase())) delete (value as Record<string, unknown>)[key];
      else withoutHostAccess((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/** Query values that name a place to fetch from: only loopback, where nothing listens. */
const URL_QUERIES = new Set(['remote', 'fromSrc']);
const LOOPBACK_URL = 'http://127.0.0.1:9/context.tar';

/** Query parameters dropped: a build step's cgroup parent is the host's cgroup tree. */
const DENIED_QUERIES = new Set(['cgroupparent']);

export function safeQuery(name: string, value: string): string | undefined {
  if (DENIED_QUERIES.has(name)) return undefined;
  if (URL_QUERIES.has(name) && /^(https?:|git|github\.com)/i.test(value)) return LOOPBACK_URL;
  return value;
}
