// POST /build's query and headers as dockerd reads them (moby v20.10
// api/server/router/build/build_routes.go newImageBuildOptions), checked before the build starts:
// rm is true unless given, JSON parameters that do not parse are 400s in dockerd's words, the tags
// must be valid names without a digest, and X-Registry-Config holds the credentials for pulls of
// base images, by registry.
import { EngineError, invalidParameter } from '../errors.js';
import type { HostConfig } from '../container/config/types.js';
import { parseNormalizedReference, type ImageReference } from '../image/reference.js';
import { formBool } from '../lib/go-bool.js';
import { goJsonSyntaxError } from '../lib/go-json-error.js';
import type { AuthConfig } from '../image/registry/auth-header.js';

export interface BuildOptions {
  tags: ImageReference[];
  dockerfile: string;
  remote: string;
  quiet: boolean;
  noCache: boolean;
  cacheFrom: string[];
  pull: boolean;
  remove: boolean;
  forceRemove: boolean;
  /** what each step's container runs with: resources, network mode, extra hosts, shm size */
  hostConfig: HostConfig;
  buildArgs: Map<string, string | null>;
  labels: Record<string, string>;
  platform: string;
  target: string;
  authConfigs: Record<string, AuthConfig>;
}

export interface BuildQuery {
  get(name: string): string | null;
  getAll(name: string): string[];
}

export function parseBuildOptions(q: BuildQuery, registryConfig: string | undefined): BuildOptions {
  const bool = (name: string) => formBool(q.get(name));
  const int = (name: string) => {
    const v = q.get(name);
    if (v === null || v === '') return 0;
    const n = Number(v);
    return Number.isInteger(n) ? n : 0;
  };
  if (q.getAll('securityopt').length > 0) throw invalidParameter('The daemon on this platform does not support setting security options on build');
  const isolation = q.get('isolation') ?? '';
  if (isolation !== '' && isolation !== 'default') throw invalidParameter(`Unsupported isolation: "${isolation}"`);
  const shmText = q.get('shmsize');
  const shmSize = shmText === null || shmText === '' ? 0 : Number(shmText);
  if (!Number.isInteger(shmSize)) throw invalidParameter(`strconv.ParseInt: parsing "${shmText}": invalid syntax`);
  const version = q.get('version') ?? '';
  if (version === '2') throw invalidParameter('buildkit not supported by daemon');
  if (version !== '' && version !== '1') throw invalidParameter(`invalid BuilderVersion: ${version}`);
  if (bool('squash')) throw invalidParameter('squash is only supported with experimental mode');
  const rm = q.get('rm');
  return {
    tags: q.getAll('t').map(parseTag),
    dockerfile: q.get('dockerfile') ?? '',
    remote: q.get('remote') ?? '',
    quiet: bool('q'),
    noCache: bool('nocache'),
    // a cachefrom that does not decode is dockerd's 500 with the bare reason
    cacheFrom: jsonParam(q.get('cachefrom'), (v): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string'), (m) => new EngineError('system', m)) ?? [],
    pull: bool('pull'),
    remove: rm === null || rm === '' ? true : bool('rm'),
    forceRemove: bool('forcerm'),
    hostConfig: {
      Memory: int('memory'),
      MemorySwap: int('memswap'),
      CpuShares: int('cpushares'),
      CpuPeriod: int('cpuperiod'),
      CpuQuota: int('cpuquota'),
      CpusetCpus: q.get('cpusetcpus') ?? '',
      CpusetMems: q.get('cpusetmems') ?? '',
      CgroupParent: q.get('cgroupparent') ?? '',
      ShmSize: shmSize,
      NetworkMode: q.get('networkmode') ?? '',
      ExtraHosts: q.getAll('extrahosts'),
      // a step's output is streamed, not logged (dockerd's defaultLogConfig)
      LogConfig: { Type: 'none', Config: {} },
    },
    buildArgs: new Map(Object.entries(jsonParam(q.get('buildargs'), isStringMap, (m) => invalidParameter(`error reading build args: ${m}`)) ?? {})),
    labels: jsonParam(q.get('labels'), (v): v is Record<string, string> => isStringMap(v) && Object.values(v).every((x) => x !== null), (m) => invalidParameter(`error reading labels: ${m}`)) ?? {},
    platform: q.get('platform') ?? '',
    target: q.get('target') ?? '',
    authConfigs: decodeRegistryConfig(registryConfig),
  };
}

function parseTag(tag: string) {
  let ref: ImageReference;
  try {
    ref = parseNormalizedReference(tag);
  } catch (err) {
    // dockerd's tagger answers a bad name with a 500
    throw new EngineError('system', (err as Error).message);
  }
  if (ref.digest !== undefined) throw new EngineError('system', 'build tag cannot contain a digest');
  return ref;
}

function isStringMap(v: unknown): v is Record<string, string | null> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => x === null || typeof x === 'string');
}

/** A JSON parameter, or undefined when absent or null; one that does not decode fails with `fail`'s error. */
function jsonParam<T>(text: string | null, valid: (v: unknown) => v is T, fail: (message: string) => EngineError): T | undefined {
  if (text === null || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fail(goJsonSyntaxError(text));
  }
  if (value === null) return undefined;
  if (!valid(value)) throw fail(`json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of the expected type`);
  return value;
}

/** X-Registry-Config: base64 (either alphabet) JSON of registry → credentials; dockerd ignores one that does not decode. */
function decodeRegistryConfig(header: string | undefined): Record<string, AuthConfig> {
  if (header === undefined || header === '') return {};
  try {
    const json = Buffer.from(header.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, AuthConfig>) : {};
  } catch {
    return {};
  }
}
