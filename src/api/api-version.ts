// The one home of API version numbers: parsing the /vX.Y prefix, the supported range, and the
// behaviour table that routes ask ("does this request's version have behaviour X?").
import { UnsupportedApiVersionError } from '../errors.js';

export const CURRENT_API_VERSION = '1.41';
export const MIN_API_VERSION = '1.25';

/** A named behaviour that exists only from (`since`) or up to (`until`) some API version, inclusive. */
interface Behaviour {
  since?: string;
  until?: string;
  reason: string;
  source: string;
}

const behaviours = {
  healthcheckMinimumDuration: {
    since: '1.40',
    reason: 'HealthConfig Interval/Timeout/StartPeriod must be 0 or at least 1 ms',
    source: 'seed: HealthConfig (1.40, 1.41)',
  },
  envWithoutEqualsRemovesVariable: {
    since: '1.40',
    reason: 'a variable without "=" in ContainerConfig.Env removes it rather than setting it empty',
    source: 'seed: ContainerConfig.Env',
  },
  pidsLimitZeroIsUnlimited: {
    since: '1.40',
    reason: 'PidsLimit 0 or -1 means unlimited and null means unchanged; 1.25 knows only -1',
    source: 'seed: Resources.PidsLimit',
  },
  capabilitiesField: {
    since: '1.40',
    until: '1.40',
    reason: 'HostConfig.Capabilities exists in 1.40 only',
    source: 'seed: HostConfig.Capabilities',
  },
  cgroupnsMode: {
    since: '1.41',
    reason: 'HostConfig.CgroupnsMode is 1.41 only',
    source: 'seed: HostConfig.CgroupnsMode',
  },
  defaultIpcModeShareable: {
    until: '1.39',
    reason: 'a create body with a HostConfig but no IpcMode gets "shareable" rather than the daemon default "private"',
    source: 'moby v20.10.27 postContainersCreate (asked: IpcMode "shareable" at 1.25, "private" at 1.40)',
  },
  kernelMemoryTcpField: {
    since: '1.40',
    reason: 'HostConfig.KernelMemoryTCP is honoured at create; older versions have it reset to 0',
    source: 'moby v20.10.27 postContainersCreate; seed: Resources.KernelMemoryTCP (asked: 0 at 1.25)',
  },
  bindNonRecursiveOption: {
    since: '1.40',
    reason: 'Mount.BindOptions.NonRecursive is honoured at create; older versions have it ignored',
    source: 'moby v20.10.27 postContainersCreate; seed: Mount.BindOptions (asked: dropped at 1.25)',
  },
  attachWebsocketBinaryMessages: {
    since: '1.28',
    reason: 'GET /containers/{id}/attach/ws sends output in binary messages; older versions send text ones',
    source: 'moby v20.10.27 wsContainersAttach (asked: binary at 1.41, text at 1.25)',
  },
  statsOneShot: {
    since: '1.41',
    reason: 'GET /containers/{id}/stats?stream=0&one-shot=1 sends one sample at once; older versions ignore one-shot and prime the CPU figures first',
    source: 'moby v20.10.27 getContainersStats (asked: 1 s at 1.41, 2 s at 1.40)',
  },
  networkListContainers: {
    until: '1.27',
    reason: "GET /networks shows each network's Containers; from 1.28 they are left empty",
    source: 'moby v20.10.27 getNetworksList (Detailed below 1.28); asked: filled at 1.25, empty at 1.41',
  },
  updatePidsLimit: {
    since: '1.40',
    reason: 'POST /containers/{id}/update honours PidsLimit; older versions have it ignored',
    source: 'moby v20.10.27 postContainerUpdate',
  },
  serviceSysctlsAndMaxReplicas: {
    since: '1.40',
    reason: 'a service spec keeps ContainerSpec.Sysctls, Privileges.CredentialSpec.Config, Configs[].Runtime and Placement.MaxReplicas; older versions have them dropped',
    source: 'moby v20.10.27 api/server/router/swarm/helpers.go adjustForAPIVersion (create and update only)',
  },
  serviceCapabilitiesUlimitsAndJobs: {
    since: '1.41',
    reason: 'a service spec keeps CapabilityAdd/Drop, Ulimits, Resources.Limits.Pids and the job modes; older versions have them dropped (a job becomes a replicated service)',
    source: 'moby v20.10.27 api/server/router/swarm/helpers.go adjustForAPIVersion (create and update only)',
  },
} satisfies Record<string, Behaviour>;

export type BehaviourName = keyof typeof behaviours;

export const BEHAVIOUR_NAMES = Object.keys(behaviours) as BehaviourName[];

/** The API version of one request, and what it implies. */
export class ApiVersion {
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }

  has(name: BehaviourName): boolean {
    const b: Behaviour = behaviours[name];
    if (b.since !== undefined && compareVersions(this.value, b.since) < 0) return false;
    if (b.until !== undefined && compareVersions(this.value, b.until) > 0) return false;
    return true;
  }

  toString(): string {
    return this.value;
  }
}

const versionPrefix = /^\/v([0-9.]+)(\/.*)$/;

/** Splits `/v1.40/info` into `1.40` and `/info`; a path without a prefix has no version. */
export function splitVersionPrefix(pathname: string): { version: string | undefined; path: string } {
  const m = versionPrefix.exec(pathname);
  return m ? { version: m[1], path: m[2] } : { version: undefined, path: pathname };
}

/**
 * The API version a request is served at: the current one when the path had no prefix.
 * Throws UnsupportedApiVersionError outside 1.25–1.41, with dockerd's wording.
 */
export function negotiateApiVersion(version: string | undefined): ApiVersion {
  if (version === undefined) return new ApiVersion(CURRENT_API_VERSION);
  if (compareVersions(version, MIN_API_VERSION) < 0) {
    throw new UnsupportedApiVersionError(
      `client version ${version} is too old. Minimum supported API version is ${MIN_API_VERSION}, please upgrade your client to a newer version`,
    );
  }
  if (compareVersions(version, CURRENT_API_VERSION) > 0) {
    throw new UnsupportedApiVersionError(
      `client version ${version} is too new. Maximum supported API version is ${CURRENT_API_VERSION}`,
    );
  }
  return new ApiVersion(version);
}

/** Compares dotted versions field by field as numbers, as moby's versions.compare does. */
function compareVersions(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  const n = Math.max(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = Number.parseInt(pa[i] ?? '0', 10) || 0;
    const y = Number.parseInt(pb[i] ?? '0', 10) || 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
