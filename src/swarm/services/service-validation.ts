// swarmkit's checks of a service's spec (manager/controlapi/service.go validateServiceSpec), in
// its order and its words: each an InvalidArgument (400), but a placement constraint's (500). The
// checks that need the store (networks, published ports in use, secrets and configs that exist,
// the name taken) are the create and update calls' own. One check is berth's, in the same form: a
// port's name must be a DNS label (lib/dns-label.ts).
import { EngineError } from '../../errors.js';
import { formatGoFloat } from '../../lib/go-float.js';
import { parseNormalizedReference } from '../../image/reference.js';
import { goQuote } from '../../build/dockerfile/go-quote.js';
import { DNS_LABEL_RULE, isDnsLabel } from '../../lib/dns-label.js';
import { parseConstraints } from './placement-constraints.js';
import { isJob } from './service-records.js';
import type { ContainerSpec, EndpointSpec, Resources, ServiceMode, ServiceSpec, TaskSpec, UpdateConfig } from './service-types.js';

const NAME = /^[a-zA-Z0-9](?:[-_]*[A-Za-z0-9]+)*$/;
const MIN_NANO_CPUS = 1e6;
const MIN_MEMORY_BYTES = 4 * 1024 * 1024;
const MIN_HEALTHCHECK_NS = 1_000_000;
// a uint64 this large is negative once swarmkit casts it to int64
const INT64_OVERFLOW = 2 ** 63;

export function validateServiceSpec(spec: ServiceSpec): void {
  if (spec.Name === '') throw invalidArgument('meta: name must be provided');
  if (!NAME.test(spec.Name)) throw invalidArgument('name must be valid as a DNS name component');
  if (spec.Name.length > 63) throw invalidArgument('name must be 63 characters or fewer');
  validateTaskSpec(spec.TaskTemplate);
  validateMode(spec.Mode);
  if (isJob(spec.Mode)) {
    if (spec.UpdateConfig !== undefined) throw invalidArgument('Jobs may not have an update config');
  } else {
    // the rollback config is never checked
    validateUpdateConfig(spec.UpdateConfig);
  }
  validateEndpointSpec(spec.EndpointSpec);
}

function validateTaskSpec(task: TaskSpec): void {
  for (const resources of [task.Resources?.Limits, task.Resources?.Reservations]) validateResources(resources);
  if ((task.RestartPolicy?.Delay ?? 0) < 0) throw invalidArgument('TaskSpec: restart-delay cannot be negative');
  if ((task.RestartPolicy?.Window ?? 0) < 0) throw invalidArgument('TaskSpec: restart-window cannot be negative');
  parseConstraints(task.Placement?.Constraints ?? []);
  const container = task.ContainerSpec;
  if (container === undefined) return;
  validateSecretReferences(container);
  validateConfigReferences(container);
  validateImage(container.Image);
  const targets = new Set<string>();
  for (const mount of container.Mounts ?? []) {
    if (targets.has(mount.Target)) throw invalidArgument(`ContainerSpec: duplicate mount point: ${mount.Target}`);
    targets.add(mount.Target);
  }
  const health = container.Healthcheck;
  for (const field of ['Interval', 'Timeout', 'StartPeriod'] as const) {
    const ns = health?.[field] ?? 0;
    if (ns !== 0 && ns < MIN_HEALTHCHECK_NS) throw invalidArgument(`ContainerSpec: ${field} in HealthConfig cannot be less than 1ms`);
  }
  if ((health?.Retries ?? 0) < 0) throw invalidArgument('ContainerSpec: Retries in HealthConfig cannot be negative');
}

function validateResources(r: Resources | undefined): void {
  const cpus = r?.NanoCPUs ?? 0;
  if (cpus !== 0 && cpus < MIN_NANO_CPUS) throw invalidArgument(`invalid cpu value ${formatGoFloat(cpus / 1e9)}: Must be at least ${formatGoFloat(MIN_NANO_CPUS / 1e9)}`);
  const memory = r?.MemoryBytes ?? 0;
  if (memory !== 0 && memory < MIN_MEMORY_BYTES) throw invalidArgument(`invalid memory value ${memory}: Must be at least 4MiB`);
}

function validateSecretReferences(container: ContainerSpec): void {
  const targets = new Map<string, string>();
  for (const ref of container.Secrets ?? []) {
    if (ref.SecretID === '' || ref.SecretName === '') throw invalidArgument('malformed secret reference');
    if (ref.File === undefined) throw invalidArgument('malformed secret reference, no target provided');
    const file = ref.File.Name;
    if (file === '') throw invalidArgument('malformed file secret reference, invalid target file name provided');
    const previous = targets.get(file);
    if (previous !== undefined) throw invalidArgument(`secret references '${previous}' and '${ref.SecretName}' have a conflicting target: '${file}'`);
    targets.set(file, ref.SecretName);
  }
}

function validateConfigReferences(container: ContainerSpec): void {
  const credentialConfig = container.Privileges?.CredentialSpec?.Config ?? '';
  let credentialConfigFound = false;
  const targets = new Map<string, string>();
  for (const ref of container.Configs ?? []) {
    if (ref.ConfigID === '' || ref.ConfigName === '') throw invalidArgument('malformed config reference');
    if (ref.File !== undefined) {
      const file = ref.File.Name;
      if (file === '') throw invalidArgument('malformed file config reference, invalid target file name provided');
      const previous = targets.get(file);
      if (previous !== undefined) throw invalidArgument(`config references '${previous}' and '${ref.ConfigName}' have a conflicting target: '${file}'`);
      targets.set(file, ref.ConfigName);
    }
    if (ref.Runtime !== undefined && ref.ConfigID === credentialConfig) credentialConfigFound = true;
  }
  if (credentialConfig !== '' && !credentialConfigFound) {
    throw invalidArgument(`CredentialSpec references config '${credentialConfig}', but that config isn't in config references with RuntimeTarget`);
  }
}

function validateImage(image: string): void {
  if (image === '') throw invalidArgument('ContainerSpec: image reference must be provided');
  try {
    parseNormalizedReference(image);
  } catch {
    throw invalidArgument(`ContainerSpec: ${goQuote(image)} is not a valid repository/tag`);
  }
}

function validateMode(mode: ServiceMode): void {
  if ((mode.Replicated?.Replicas ?? 0) >= INT64_OVERFLOW) throw invalidArgument('Number of replicas must be non-negative');
  if ((mode.ReplicatedJob?.MaxConcurrent ?? 0) >= INT64_OVERFLOW) throw invalidArgument('Maximum concurrent jobs must not be negative');
  if ((mode.ReplicatedJob?.TotalCompletions ?? 0) >= INT64_OVERFLOW) throw invalidArgument('Total completed jobs must not be negative');
}

function validateUpdateConfig(config: UpdateConfig | undefined): void {
  if (config === undefined) return;
  if ((config.Delay ?? 0) < 0) throw invalidArgument('TaskSpec: update-delay cannot be negative');
  if ((config.Monitor ?? 0) < 0) throw invalidArgument('TaskSpec: update-monitor cannot be negative');
  if (config.MaxFailureRatio < 0 || config.MaxFailureRatio > 1) throw invalidArgument('TaskSpec: update-maxfailureratio cannot be less than 0 or bigger than 1');
}

function validateEndpointSpec(endpoint: EndpointSpec | undefined): void {
  const published = new Set<string>();
  for (const port of endpoint?.Ports ?? []) {
    if (endpoint!.Mode === 'dnsrr' && port.PublishMode === 'ingress') throw invalidArgument("EndpointSpec: port published with ingress mode can't be used with dnsrr mode");
    // berth's own: swarmkit takes any name, but a name will be a label of the port's DNS SRV name
    const name = port.Name ?? '';
    if (name !== '' && !isDnsLabel(name)) throw invalidArgument(`EndpointSpec: port name ${goQuote(name)} is not a valid DNS label: use ${DNS_LABEL_RULE}`);
    if (!port.PublishedPort) continue;
    // one published port per protocol, whatever its publish mode
    const key = `${port.PublishedPort}/${port.Protocol}`;
    if (published.has(key)) throw invalidArgument('EndpointSpec: duplicate published ports provided');
    published.add(key);
  }
}

function invalidArgument(message: string): EngineError {
  return new EngineError('invalidParameter', `rpc error: code = InvalidArgument desc = ${message}`);
}
