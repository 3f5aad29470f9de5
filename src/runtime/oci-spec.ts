// The OCI runtime spec (a bundle's config.json, runtime-spec 1.0.2 as runc 1.1 reads it) for one
// container, with Docker 20.10's defaults (moby v20.10.27 oci/defaults.go and daemon/oci_linux.go):
// its capability set, mounts, masked and read-only paths, namespaces and device rules. A pure
// function of a small domain object: resolving images, users and HostConfig happens before.

/** runc 1.1's spec version (runtime-spec v1.0.2-dev, as `runc --version` prints). */
export const OCI_VERSION = '1.0.2-dev';

/** Docker's default capabilities (moby oci/defaults.go DefaultCapabilities). */
export const DEFAULT_CAPABILITIES: readonly string[] = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FSETID',
  'CAP_FOWNER',
  'CAP_MKNOD',
  'CAP_NET_RAW',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETFCAP',
  'CAP_SETPCAP',
  'CAP_NET_BIND_SERVICE',
  'CAP_SYS_CHROOT',
  'CAP_KILL',
  'CAP_AUDIT_WRITE',
];

/** Docker's default masked paths (moby oci/defaults.go; /proc/scsi since CVE-2017-16539). */
export const DEFAULT_MASKED_PATHS: readonly string[] = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
];

/** Docker's default read-only paths (moby oci/defaults.go). */
export const DEFAULT_READONLY_PATHS: readonly string[] = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** HostConfig.ShmSize's default: 64 MiB. */
export const DEFAULT_SHM_SIZE_BYTES = 64 * 1024 * 1024;

export interface OciMount {
  destination: string;
  type?: string;
  source?: string;
  options?: string[];
}

export interface OciDevice {
  path: string;
  type: 'c' | 'b' | 'u' | 'p';
  major: number;
  minor: number;
  fileMode?: number;
  uid?: number;
  gid?: number;
}

export interface OciDeviceCgroupRule {
  allow: boolean;
  /** 'a' (all), 'c' or 'b'; absent means all */
  type?: 'a' | 'b' | 'c';
  /** absent means any (`*`) */
  major?: number;
  minor?: number;
  access?: string;
}

export interface OciRlimit {
  /** RLIMIT_NOFILE, ... */
  type: string;
  soft: number;
  hard: number;
}

/** A namespace the container gets a new one of, shares the host's, or joins at a path (/proc/<pid>/ns/net, a bind-mounted netns). */
export type NamespaceMode = 'private' | 'host' | { path: string };

export type NamespaceType = 'pid' | 'network' | 'ipc' | 'uts' | 'cgroup';

/** The container as the runtime sees it. Everything optional has Docker's default. */
export interface ContainerSpecInput {
  args: string[];
  env: string[];
  /** absolute, inside the container */
  cwd: string;
  user: { uid: number; gid: number; additionalGids?: number[] };
  terminal?: boolean;
  consoleSize?: { height: number; width: number };
  /** ignored when the UTS namespace is the host's */
  hostname?: string;
  /** the root filesystem's path on the host (the mounted overlay) */
  rootfsPath: string;
  readonlyRootfs?: boolean;
  /** e.g. /berth/<id> (cgroupfs) */
  cgroupsPath: string;
  /** pid, network, ipc, uts: 'private' by default; cgroup: 'host' by default (cgroup v1 and hybrid hosts) */
  namespaces?: Partial<Record<NamespaceType, NamespaceMode>>;
  /** /dev/shm: a tmpfs of this size (private IPC), a directory bind-mounted there (shareable IPC, container:), or none at all (IpcMode none) */
  shm?: { sizeBytes: number } | { hostPath: string } | 'none';
  /** HostConfig.Privileged: /sys and the cgroup mount writable, every device allowed, no masked or read-only paths (unless given) */
  privileged?: boolean;
  /** The container's mounts (binds, volumes, tmpfs, /etc/hosts...), after the defaults; one at a default's destination replaces that default, and one at /dev drops the defaults under /dev. */
  mounts?: OciMount[];
  /** bounding, effective and permitted (inheritable stays empty); Docker's defaults when absent */
  capabilities?: readonly string[];
  noNewPrivileges?: boolean;
  /** none by default: the container inherits the daemon's limits */
  rlimits?: OciRlimit[];
  maskedPaths?: readonly string[];
  readonlyPaths?: readonly string[];
  /** devices created in the container (HostConfig.Devices) */
  devices?: OciDevice[];
  /** device cgroup rules after Docker's defaults (HostConfig.Devices' and DeviceCgroupRules') */
  deviceCgroupRules?: OciDeviceCgroupRule[];
  /** unset by default: the container keeps the daemon's */
  oomScoreAdj?: number;
  sysctl?: Record<string, string>;
  /** cgroup limits other than devices (memory, cpu, pids, blockIO), in the spec's shape */
  resources?: Record<string, unknown>;
  /** a seccomp profile in the spec's shape; none when absent */
  seccomp?: Record<string, unknown>;
  /** linux.rootfsPropagation: 'rslave' or 'rshared' when a bind mount asks for it; runc's default (rprivate) when absent */
  rootfsPropagation?: string;
}

/** The OCI spec's JSON shape, as far as berth writes it. */
export interface OciSpec {
  ociVersion: string;
  process: {
    terminal: boolean;
    consoleSize?: { height: number; width: number };
    user: { uid: number; gid: number; additionalGids?: number[] };
    args: string[];
    env: string[];
    cwd: string;
    capabilities: { bounding: string[]; effective: string[]; inheritable: string[]; permitted: string[] };
    rlimits?: OciRlimit[];
    noNewPrivileges: boolean;
    oomScoreAdj?: number;
    apparmorProfile?: string;
    selinuxLabel?: string;
  };
  root: { path: string; readonly: boolean };
  hostname?: string;
  mounts: OciMount[];
  linux: {
    resources: Record<string, unknown> & { devices: OciDeviceCgroupRule[] };
    cgroupsPath: string;
    namespaces: Array<{ type: string; path?: string }>;
    devices: OciDevice[];
    maskedPaths: string[];
    readonlyPaths: string[];
    sysctl?: Record<string, string>;
    seccomp?: Record<string, unknown>;
    rootfsPropagation?: string;
  };
}

/** A process of the spec: the container's init, or one that `runc exec --process` starts beside it. */
export type OciProcess = OciSpec['process'];

/** Docker's device cgroup rules (moby oci/defaults.go): deny all, then the basic character devices, and deny fuse. */
export function defaultDeviceCgroupRules(): OciDeviceCgroupRule[] {
  const allow = (major: number, minor: number): OciDeviceCgroupRule => ({ allow: true, type: 'c', major, minor, access: 'rwm' });
  return [
    { allow: false, access: 'rwm' },
    allow(1, 5), // /dev/zero
    allow(1, 3), // /dev/null
    allow(1, 9), // /dev/urandom
    allow(1, 8), // /dev/random
    allow(5, 0), // /dev/tty
    allow(5, 1), // /dev/console
    { allow: false, type: 'c', major: 10, minor: 229, access: 'rwm' }, // /dev/fuse
  ];
}

function defaultMounts(shm: NonNullable<ContainerSpecInput['shm']>, ipc: NamespaceMode, privileged: boolean): OciMount[] {
  const shmMount: OciMount | undefined =
    shm === 'none'
      ? undefined
      : ipc === 'host'
      ? { destination: '/dev/shm', type: 'bind', source: '/dev/shm', options: ['rbind', 'nosuid', 'noexec', 'nodev'] }
      : 'hostPath' in shm
        ? { destination: '/dev/shm', type: 'bind', source: shm.hostPath, options: ['rbind', 'rprivate'] }
        : { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['rw', 'nosuid', 'noexec', 'nodev', 'mode=1777', `size=${shm.sizeBytes}`] };
  const mqueue: OciMount =
    ipc === 'host'
      ? { destination: '/dev/mqueue', type: 'bind', source: '/dev/mqueue', options: ['rbind', 'nosuid', 'noexec', 'nodev'] }
      : { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['rw', 'nosuid', 'noexec', 'nodev'] };
  // a privileged container may write /sys and its cgroups (moby's WithMounts clears their ro)
  const sysMode = privileged ? 'rw' : 'ro';
  return [
    { destination: '/proc', type: 'proc', source: 'proc', options: ['rw', 'nosuid', 'noexec', 'nodev'] },
    { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['rw', 'nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
    { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['rw', 'nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'] },
    { destination: '/sys', type: 'sysfs', source: 'sysfs', options: [sysMode, 'nosuid', 'noexec', 'nodev'] },
    { destination: '/sys/fs/cgroup', type: 'cgroup', source: 'cgroup', options: [sysMode, 'nosuid', 'noexec', 'nodev'] },
    mqueue,
    ...(shmMount ? [shmMount] : []),
  ];
}

const NAMESPACE_ORDER: NamespaceType[] = ['network', 'uts', 'pid', 'ipc', 'cgroup'];

function namespaces(modes: ContainerSpecInput['namespaces'] = {}): Array<{ type: string; path?: string }> {
  // the mount namespace is always the container's own
  const out: Array<{ type: string; path?: string }> = [{ type: 'mount' }];
  for (const type of NAMESPACE_ORDER) {
    const mode = modes[type] ?? (type === 'cgroup' ? 'host' : 'private');
    if (mode === 'host') continue;
    out.push(mode === 'private' ? { type } : { type, path: mode.path });
  }
  return out;
}

/** The container's config.json. */
export function ociSpec(input: ContainerSpecInput): OciSpec {
  const ipc = input.namespaces?.ipc ?? 'private';
  const uts = input.namespaces?.uts ?? 'private';
  const userMounts = input.mounts ?? [];
  const userDestinations = new Set(userMounts.map((m) => normalizeDestination(m.destination)));
  const mountsDev = userDestinations.has('/dev');
  const privileged = input.privileged ?? false;
  const defaults = defaultMounts(input.shm ?? { sizeBytes: DEFAULT_SHM_SIZE_BYTES }, ipc, privileged).filter(
    (m) => !userDestinations.has(m.destination) && !(mountsDev && m.destination.startsWith('/dev/')),
  );
  const caps = [...(input.capabilities ?? DEFAULT_CAPABILITIES)];

  const spec: OciSpec = {
    ociVersion: OCI_VERSION,
    process: {
      terminal: input.terminal ?? false,
      user: { uid: input.user.uid, gid: input.user.gid, ...(input.user.additionalGids?.length ? { additionalGids: [...input.user.additionalGids] } : {}) },
      args: [...input.args],
      env: [...input.env],
      cwd: input.cwd,
      // inheritable is empty since Docker 20.10.14 (CVE-2022-24769)
      capabilities: { bounding: caps, effective: [...caps], inheritable: [], permitted: [...caps] },
      noNewPrivileges: input.noNewPrivileges ?? false,
    },
    root: { path: input.rootfsPath, readonly: input.readonlyRootfs ?? false },
    mounts: [...defaults, ...userMounts.map((m) => ({ ...m, ...(m.options ? { options: [...m.options] } : {}) }))],
    linux: {
      resources: {
        ...input.resources,
        // privileged: every device (moby's WithDevices replaces the rules with one allow-all)
        devices: privileged ? [{ allow: true, access: 'rwm' }] : [...defaultDeviceCgroupRules(), ...(input.deviceCgroupRules ?? [])],
      },
      cgroupsPath: input.cgroupsPath,
      namespaces: namespaces(input.namespaces),
      devices: [...(input.devices ?? [])],
      maskedPaths: [...(input.maskedPaths ?? (privileged ? [] : DEFAULT_MASKED_PATHS))],
      readonlyPaths: [...(input.readonlyPaths ?? (privileged ? [] : DEFAULT_READONLY_PATHS))],
    },
  };
  if (spec.process.terminal && input.consoleSize) spec.process.consoleSize = { ...input.consoleSize };
  if (input.rlimits?.length) spec.process.rlimits = input.rlimits.map((r) => ({ ...r }));
  if (input.oomScoreAdj !== undefined) spec.process.oomScoreAdj = input.oomScoreAdj;
  // runc refuses a hostname without a UTS namespace of the container's own
  if (input.hostname !== undefined && uts !== 'host') spec.hostname = input.hostname;
  if (input.sysctl && Object.keys(input.sysctl).length > 0) spec.linux.sysctl = { ...input.sysctl };
  if (input.seccomp) spec.linux.seccomp = input.seccomp;
  if (input.rootfsPropagation) spec.linux.rootfsPropagation = input.rootfsPropagation;
  return spec;
}

function normalizeDestination(destination: string): string {
  const trimmed = destination.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.replace(/\/{2,}/g, '/');
}
