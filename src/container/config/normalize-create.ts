// A POST /containers/create body (decoded by create-body.ts) turned into the configuration dockerd
// 20.10 would store: checked in dockerd's order (so that the first failure is the one dockerd reports), adjusted for
// the API version, merged with the image's config and filled with defaults. The service fills
// Config.Hostname (the first 12 characters of the ID) and resolves `container:<name>` references.
import type { DecodedCreateBody } from './create-body.js';
import type { CreateBehaviours } from './create-behaviours.js';
import type { CreateLimits } from './create-limits.js';
import { adjustForApiVersion, fillHostConfigDefaults, shapeConfig, shapeHostConfig } from './host-config-defaults.js';
import { mergeImageConfig, type ImageRuntimeConfig } from './merge-image-config.js';
import type { BareEnv } from '../container-record.js';
import type { ContainerConfig, HostConfig, NetworkingConfig } from './types.js';
import { validateContainerConfig } from './validate-config.js';
import { mergeLogConfig, validateIsolation, validatePlatformOptions, validateRestartPolicy } from './validate-host-options.js';
import { collectMounts, parseMount, validateTmpfsDestination, type ParsedMount } from './validate-mounts.js';
import { validateExtraHosts, validateNetworkMode, validateNetworkingConfig, validatePortBindings } from './validate-network.js';
import { checkDecoderResources, verifyResources } from './validate-resources.js';
import { validateCapabilities, validateNamespaceModes, validateSecurityOpts, validateSysctls } from './validate-security.js';
import { validateUlimits } from './ulimits.js';

export type { CreateLimits } from './create-limits.js';
export type { CreateBehaviours, CreateBehaviourName } from './create-behaviours.js';
export type { ImageRuntimeConfig } from './merge-image-config.js';

export interface NormalizeCreateInput {
  body: DecodedCreateBody;
  api: CreateBehaviours;
  /** The image's runtime config; null when the body names no image (Image ""). */
  image: ImageRuntimeConfig | null;
  limits: CreateLimits;
  /** The daemon's data root: binds over or under it must propagate as rslave or rshared. */
  dataRoot: string;
}

export interface NormalizedCreate {
  config: ContainerConfig;
  /** what Config.Env entries without "=" do to the process's environment, by the API version */
  bareEnv: BareEnv;
  hostConfig: HostConfig;
  networkingConfig: NetworkingConfig;
  warnings: string[];
  /** Binds then Mounts, parsed; anonymous volumes have name '' for the service to name. */
  mounts: ParsedMount[];
}

export function normalizeCreate(input: NormalizeCreateInput): NormalizedCreate {
  const { api, limits } = input;
  const { config, hostConfig: given, networkingConfig } = input.body;
  const warnings: string[] = [];

  if (given) {
    validateNetworkMode(config, given);
    validateIsolation(given);
    checkDecoderResources(given, limits);
    adjustForApiVersion(given, api);
  }
  validateContainerConfig(config, { healthcheckMinimum: api.has('healthcheckMinimumDuration') });
  adjustConfigForApiVersion(config, api);
  if (given && !api.has('cgroupnsMode')) delete given.CgroupnsMode;
  let mountItems: ParsedMount[] = [];
  if (given) {
    const verified = verifyHostConfig(given, input);
    warnings.push(...verified.warnings);
    mountItems = verified.mountItems;
  }
  validateNetworkingConfig(networkingConfig);

  const hc = given ?? {};
  fillHostConfigDefaults(hc, limits.cgroup.version);
  mergeImageConfig(config, input.image);
  hc.LogConfig = mergeLogConfig(hc.LogConfig, limits.logConfig);
  validateSecurityOpts(hc.SecurityOpt);
  validateSysctls(hc);
  const mounts = collectMounts(hc, input.dataRoot, mountItems);

  const bareEnv = api.has('envWithoutEqualsRemovesVariable') ? 'unset' : 'empty';
  return { config: shapeConfig(config), bareEnv, hostConfig: shapeHostConfig(hc), networkingConfig, warnings, mounts };
}

/** The seed's version differences in ContainerConfig (Env's is the process's: bareEnv). */
function adjustConfigForApiVersion(config: ContainerConfig, api: CreateBehaviours): void {
  // HealthConfig.StartPeriod exists from 1.40
  if (!api.has('healthcheckMinimumDuration') && config.Healthcheck) delete config.Healthcheck.StartPeriod;
}

/** dockerd's validateHostConfig and verifyPlatformContainerSettings, plus the ulimits: the warnings, and the Mounts parsed. */
function verifyHostConfig(hc: HostConfig, input: NormalizeCreateInput): { warnings: string[]; mountItems: ParsedMount[] } {
  validateRestartPolicy(hc);
  const mountItems = (hc.Mounts ?? []).map(parseMount);
  validateExtraHosts(hc.ExtraHosts);
  validatePortBindings(hc.PortBindings);
  validateCapabilities(hc, input.api.has('capabilitiesField'));

  const warnings = verifyResources(hc, input.limits);
  warnings.push(...validateNamespaceModes(hc, input.limits.cgroupNamespaces));
  validatePlatformOptions(hc);
  if (hc.NetworkMode === 'host' && Object.keys(hc.PortBindings ?? {}).length) {
    warnings.push('Published ports are discarded when using host network mode');
  }
  if (!hc.Runtime) hc.Runtime = 'runc';
  for (const dest of Object.keys(hc.Tmpfs ?? {})) validateTmpfsDestination(dest);
  validateUlimits(hc.Ulimits, input.limits);
  return { warnings, mountItems };
}
