// A service's spec from a create or update body, as dockerd 20.10 takes it: Go's JSON decoding
// (service-spec-schema.ts), then the fields the request's API version does not know dropped
// (api/server/router/swarm/helpers.go), then the conversion to swarmkit's spec and back
// (daemon/cluster/convert) with its refusals (plain 400s). What comes out is the spec as dockerd
// shows it: swarmkit's protobuf drops empty lists and maps and fills in enums (service-types.ts).
// Also the defaults GET /services/{id}?insertDefaults=true adds (swarmkit's api/defaults).
import { goQuote } from '../../build/dockerfile/go-quote.js';
import { generateName } from '../../container/container-names.js';
import { EngineError, invalidParameter } from '../../errors.js';
import { decodeGoJson, type GoValue } from '../../lib/go-json-decode.js';
import { SERVICE_SPEC } from './service-spec-schema.js';
import type {
  ConfigReference,
  ContainerSpec,
  EndpointSpec,
  FileTarget,
  GenericResource,
  Mount,
  NetworkAttachmentConfig,
  Privileges,
  SecretReference,
  ServiceMode,
  ServiceSpec,
  TaskSpec,
  UpdateConfig,
} from './service-types.js';

/** The API-version behaviours of a service's spec (src/swarm may not import src/api: the route passes its ApiVersion). */
export type ServiceBehaviourName = 'serviceSysctlsAndMaxReplicas' | 'serviceCapabilitiesUlimitsAndJobs';

export interface ServiceBehaviours {
  has(name: ServiceBehaviourName): boolean;
}

const SECOND_NS = 1_000_000_000;

/** A create or update body as the spec dockerd would keep; throws dockerd's 400s (and 500 for plugins). */
export function decodeServiceSpec(body: unknown, api: ServiceBehaviours): ServiceSpec {
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  const spec = decodeGoJson(body, SERVICE_SPEC);
  adjustForAPIVersion(api, spec);
  return convert(spec);
}

/** moby's adjustForAPIVersion, on the decoded body: what a client of an older API cannot have meant is dropped. */
export function adjustForAPIVersion(api: ServiceBehaviours, spec: GoValue): void {
  const task = object(spec.TaskTemplate);
  const container = object(task?.ContainerSpec);
  if (!api.has('serviceSysctlsAndMaxReplicas')) {
    if (container !== undefined) {
      delete container.Sysctls;
      delete object(object(container.Privileges)?.CredentialSpec)?.Config;
      for (const config of objects(container.Configs)) delete config.Runtime;
    }
    delete object(task?.Placement)?.MaxReplicas;
  }
  if (!api.has('serviceCapabilitiesUlimitsAndJobs')) {
    if (container !== undefined) {
      delete container.CapabilityAdd;
      delete container.CapabilityDrop;
      delete container.Ulimits;
    }
    delete object(object(task?.Resources)?.Limits)?.Pids;
    // a job sent by an older client becomes the default mode, a replicated service
    delete object(spec.Mode)?.ReplicatedJob;
    delete object(spec.Mode)?.GlobalJob;
  }
}

/** swarmkit's InterpolateService: what an unset field means, for ?insertDefaults=true. */
export function withDefaults(spec: ServiceSpec): ServiceSpec {
  const task = spec.TaskTemplate;
  const container = task.ContainerSpec;
  const restart = task.RestartPolicy;
  return {
    ...spec,
    TaskTemplate: {
      ...task,
      ...(container !== undefined ? { ContainerSpec: { ...container, StopGracePeriod: container.StopGracePeriod ?? 10 * SECOND_NS, DNSConfig: container.DNSConfig ?? {} } } : {}),
      Resources: task.Resources ?? {},
      RestartPolicy: restart === undefined ? { Condition: 'any', Delay: 5 * SECOND_NS, MaxAttempts: 0 } : { ...restart, Delay: restart.Delay ?? 5 * SECOND_NS },
      Placement: task.Placement ?? {},
    },
    UpdateConfig: updateDefaults(spec.UpdateConfig),
    RollbackConfig: updateDefaults(spec.RollbackConfig),
  };
}

function updateDefaults(config: UpdateConfig | undefined): UpdateConfig {
  if (config === undefined) return { Parallelism: 1, FailureAction: 'pause', Monitor: 5 * SECOND_NS, MaxFailureRatio: 0, Order: 'stop-first' };
  return { ...config, Monitor: config.Monitor ?? 5 * SECOND_NS };
}

/** ServiceSpecToGRPC then serviceSpecFromGRPC: dockerd's refusals in its order, and the spec as it comes back. */
function convert(spec: GoValue): ServiceSpec {
  const task = object(spec.TaskTemplate) ?? {};
  const mode = object(spec.Mode) ?? {};
  const runtime = string(task.Runtime);
  let containerSpec: ContainerSpec | undefined;
  if (runtime === 'container' || runtime === '') {
    if (task.ContainerSpec === undefined) throw invalidParameter('mismatched Runtime and *Spec fields');
    containerSpec = convertContainer(task.ContainerSpec as GoValue);
  } else if (runtime === 'plugin') {
    if (task.PluginSpec === undefined) throw invalidParameter('mismatched Runtime and *Spec fields');
    if (mode.Replicated !== undefined) throw invalidParameter('plugins must not use replicated mode');
    mode.Global = {};
  } else {
    throw invalidParameter('unsupported runtime');
  }
  // the rest in ServiceSpecToGRPC's order, which is the order of its refusals
  const restart = restartPolicy(object(task.RestartPolicy));
  const update = updateConfig(object(spec.UpdateConfig));
  const rollback = updateConfig(object(spec.RollbackConfig));
  const endpoint = endpointSpec(object(spec.EndpointSpec));
  const modeSpec = serviceMode(mode);
  // berth is no experimental daemon; dockerd's create says so once the spec converts
  if (runtime === 'plugin') throw new EngineError('system', 'runtime type "plugin" only supported in experimental');
  return compact({
    Name: string(spec.Name) || generateName(0),
    Labels: (spec.Labels as Record<string, string> | undefined) ?? {},
    TaskTemplate: compact({
      ContainerSpec: containerSpec,
      Resources: resources(object(task.Resources)),
      RestartPolicy: restart,
      Placement: placement(object(task.Placement)),
      Networks: networks(task.Networks),
      LogDriver: task.LogDriver === undefined ? undefined : driver(task.LogDriver as GoValue),
      ForceUpdate: number(task.ForceUpdate),
      Runtime: 'container' as const,
    }),
    Mode: modeSpec,
    UpdateConfig: update,
    RollbackConfig: rollback,
    Networks: networks(spec.Networks),
    EndpointSpec: endpoint,
  });
}

function convertContainer(c: GoValue): ContainerSpec {
  // containerToGRPC's refusals, in its order
  const privileges = c.Privileges === undefined ? undefined : convertPrivileges(c.Privileges as GoValue);
  const configs = objects(c.Configs).map(configReference);
  const mounts = objects(c.Mounts).map(mount);
  const healthcheck = object(c.Healthcheck);
  const dns = object(c.DNSConfig);
  return compact({
    Image: string(c.Image),
    Labels: stringMap(c.Labels),
    Command: strings(c.Command),
    Args: strings(c.Args),
    Hostname: string(c.Hostname) || undefined,
    Env: strings(c.Env),
    Dir: string(c.Dir) || undefined,
    User: string(c.User) || undefined,
    Groups: strings(c.Groups),
    Privileges: privileges,
    Init: c.Init as boolean | undefined,
    StopSignal: string(c.StopSignal) || undefined,
    TTY: c.TTY === true || undefined,
    OpenStdin: c.OpenStdin === true || undefined,
    ReadOnly: c.ReadOnly === true || undefined,
    Mounts: nonEmpty(mounts),
    StopGracePeriod: c.StopGracePeriod as number | undefined,
    Healthcheck:
      healthcheck === undefined
        ? undefined
        : compact({
            Test: strings(healthcheck.Test),
            Interval: nonZero(healthcheck.Interval),
            Timeout: nonZero(healthcheck.Timeout),
            StartPeriod: nonZero(healthcheck.StartPeriod),
            Retries: nonZero(healthcheck.Retries),
          }),
    Hosts: strings(c.Hosts),
    DNSConfig: dns === undefined ? undefined : compact({ Nameservers: strings(dns.Nameservers), Search: strings(dns.Search), Options: strings(dns.Options) }),
    Secrets: nonEmpty(objects(c.Secrets).map(secretReference)),
    Configs: nonEmpty(configs),
    Isolation: isolation(string(c.Isolation)),
    Sysctls: stringMap(c.Sysctls),
    CapabilityAdd: strings(c.CapabilityAdd),
    CapabilityDrop: strings(c.CapabilityDrop),
    Ulimits: nonEmpty(objects(c.Ulimits).map((u) => ({ Name: string(u.Name), Hard: number(u.Hard), Soft: number(u.Soft) }))),
  });
}

function convertPrivileges(p: GoValue): Privileges {
  const selinux = object(p.SELinuxContext);
  return {
    CredentialSpec: p.CredentialSpec === undefined ? null : credentialSpec(p.CredentialSpec as GoValue),
    SELinuxContext:
      selinux === undefined
        ? null
        : { Disable: selinux.Disable === true, User: string(selinux.User), Role: string(selinux.Role), Type: string(selinux.Type), Level: string(selinux.Level) },
  };
}

function credentialSpec(c: GoValue): NonNullable<Privileges['CredentialSpec']> {
  const quoted = (
    [
      ['config', c.Config],
      ['file', c.File],
      ['registry', c.Registry],
    ] as const
  )
    .filter(([, value]) => string(value) !== '')
    .map(([name]) => `"${name}"`);
  if (quoted.length === 0) throw invalidParameter('invalid CredentialSpec: must either provide "file", "registry", or "config" for credential spec');
  if (quoted.length === 2) throw invalidParameter(`invalid CredentialSpec: cannot specify both ${quoted[0]} and ${quoted[1]} credential specs`);
  if (quoted.length > 2) throw invalidParameter(`invalid CredentialSpec: cannot specify both ${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)} credential specs`);
  return { Config: string(c.Config), File: string(c.File), Registry: string(c.Registry) };
}

function fileTarget(f: GoValue): FileTarget {
  return { Name: string(f.Name), UID: string(f.UID), GID: string(f.GID), Mode: number(f.Mode) };
}

function secretReference(s: GoValue): SecretReference {
  // one without a file target stays, for swarmkit's validation to refuse
  return compact({ File: s.File === undefined ? undefined : fileTarget(s.File as GoValue), SecretID: string(s.SecretID), SecretName: string(s.SecretName) });
}

function configReference(c: GoValue): ConfigReference {
  if (c.Runtime === undefined && c.File === undefined) throw invalidParameter('invalid Config: either File or Runtime should be set');
  if (c.Runtime !== undefined && c.File !== undefined) throw invalidParameter('invalid Config: cannot specify both File and Runtime');
  const target = c.Runtime !== undefined ? { Runtime: {} } : { File: fileTarget(c.File as GoValue) };
  return { ...target, ConfigID: string(c.ConfigID), ConfigName: string(c.ConfigName) };
}

const MOUNT_TYPES = ['bind', 'volume', 'tmpfs', 'npipe'] as const;
const PROPAGATIONS = ['rprivate', 'private', 'rshared', 'shared', 'rslave', 'slave'] as const;

function mount(m: GoValue): Mount {
  const type = enumValue(MOUNT_TYPES, string(m.Type), () => `invalid MountType: ${goQuote(string(m.Type))}`);
  const bind = object(m.BindOptions);
  let bindOptions: Mount['BindOptions'];
  if (bind !== undefined) {
    const propagation = string(bind.Propagation);
    if (propagation !== '') bindOptions = { Propagation: enumValue(PROPAGATIONS, propagation, () => `invalid MountPropagation: ${goQuote(propagation)}`) };
    // the propagation defaults to rprivate
    if (bind.NonRecursive === true) bindOptions = { Propagation: bindOptions?.Propagation ?? 'rprivate', NonRecursive: true };
  }
  const volume = object(m.VolumeOptions);
  const tmpfs = object(m.TmpfsOptions);
  // Consistency has no place in swarmkit's Mount: dockerd drops it
  return compact({
    Type: type,
    Source: string(m.Source) || undefined,
    Target: string(m.Target),
    ReadOnly: m.ReadOnly === true || undefined,
    BindOptions: bindOptions,
    VolumeOptions:
      volume === undefined
        ? undefined
        : compact({ NoCopy: volume.NoCopy === true || undefined, Labels: stringMap(volume.Labels), DriverConfig: volume.DriverConfig === undefined ? undefined : driver(volume.DriverConfig as GoValue) }),
    TmpfsOptions: tmpfs === undefined ? undefined : compact({ SizeBytes: nonZero(tmpfs.SizeBytes), Mode: nonZero(tmpfs.Mode) }),
  });
}

/** container.Isolation's IsHyperV and IsProcess; anything else is the default. */
function isolation(value: string): ContainerSpec['Isolation'] {
  const lower = value.toLowerCase();
  return lower === 'hyperv' || lower === 'process' ? lower : 'default';
}

function resources(r: GoValue | undefined): TaskSpec['Resources'] {
  if (r === undefined) return undefined;
  const limits = object(r.Limits);
  const reservations = object(r.Reservations);
  return compact({
    // Pids travels as the container spec's PidsLimit and comes back in Limits
    Limits: limits === undefined ? undefined : compact({ NanoCPUs: nonZero(limits.NanoCPUs), MemoryBytes: nonZero(limits.MemoryBytes), Pids: nonZero(limits.Pids) }),
    Reservations:
      reservations === undefined
        ? undefined
        : compact({
            NanoCPUs: nonZero(reservations.NanoCPUs),
            MemoryBytes: nonZero(reservations.MemoryBytes),
            GenericResources: nonEmpty(objects(reservations.GenericResources).flatMap(genericResource)),
          }),
  });
}

/** A discrete resource wins over a named one; one with neither is dropped (dockerd panics on it). */
function genericResource(g: GoValue): GenericResource[] {
  const discrete = object(g.DiscreteResourceSpec);
  if (discrete !== undefined) return [{ DiscreteResourceSpec: compact({ Kind: string(discrete.Kind) || undefined, Value: nonZero(discrete.Value) }) }];
  const named = object(g.NamedResourceSpec);
  if (named !== undefined) return [{ NamedResourceSpec: compact({ Kind: string(named.Kind) || undefined, Value: string(named.Value) || undefined }) }];
  return [];
}

function restartPolicy(r: GoValue | undefined): TaskSpec['RestartPolicy'] {
  if (r === undefined) return undefined;
  const condition = string(r.Condition);
  return compact({
    Condition: choice(['any', 'none', 'on-failure'] as const, condition, `invalid RestartCondition: ${goQuote(condition)}`), Delay: r.Delay as number | undefined,     MaxAttempts: number(r.MaxAttempts),
    Window: r.Window as number | undefined,
  });
}

function placement(p: GoValue | undefined): TaskSpec['Placement'] {
  if (p === undefined) return undefined;
  return compact({
    Constraints: strings(p.Constraints),
    // a preference is a spread or nothing swarmkit keeps
    Preferences: nonEmpty(objects(p.Preferences).flatMap((pref) => (object(pref.Spread) === undefined ? [] : [{ Spread: { SpreadDescriptor: string(object(pref.Spread)!.SpreadDescriptor) } }]))),
    MaxReplicas: nonZero(p.MaxReplicas),
    Platforms: nonEmpty(objects(p.Platforms).map((pl) => compact({ Architecture: string(pl.Architecture) || undefined, OS: string(pl.OS) || undefined }))),
  });
}

function networks(value: unknown): NetworkAttachmentConfig[] | undefined {
  return nonEmpty(objects(value).map((n) => compact({ Target: string(n.Target), Aliases: strings(n.Aliases), DriverOpts: stringMap(n.DriverOpts) })));
}

function driver(d: GoValue): { Name?: string; Options?: Record<string, string> } {
  return compact({ Name: string(d.Name) || undefined, Options: stringMap(d.Options) });
}

function updateConfig(u: GoValue | undefined): UpdateConfig | undefined {
  if (u === undefined) return undefined;
  const failureAction = choice(['pause', 'continue', 'rollback'] as const, string(u.FailureAction), `unrecognized update failure action ${string(u.FailureAction)}`);
  const order = choice(['stop-first', 'start-first'] as const, string(u.Order), `unrecognized update order ${string(u.Order)}`);
  return compact({
    Parallelism: number(u.Parallelism),
    Delay: nonZero(u.Delay),
    FailureAction: failureAction,
    // a zero monitor is an unset one: ?insertDefaults=true fills it in
    Monitor: nonZero(u.Monitor),
    MaxFailureRatio: number(u.MaxFailureRatio),
    Order: order,
  });
}

function endpointSpec(e: GoValue | undefined): EndpointSpec | undefined {
  if (e === undefined) return undefined;
  return compact({
    Mode: choice(['vip', 'dnsrr'] as const, string(e.Mode), `invalid resolution mode: ${goQuote(string(e.Mode))}`),
    Ports: nonEmpty(
      objects(e.Ports).map((p) =>
        compact({
          Name: string(p.Name) || undefined,
          // an unknown protocol or publish mode is protobuf's zero: tcp, ingress
          Protocol: enumValue(['tcp', 'udp', 'sctp'] as const, string(p.Protocol), () => undefined),
          TargetPort: nonZero(p.TargetPort),
          PublishedPort: nonZero(p.PublishedPort),
          PublishMode: enumValue(['ingress', 'host'] as const, string(p.PublishMode), () => undefined),
        }),
      ),
    ),
  });
}

function serviceMode(mode: GoValue): ServiceMode {
  const given = (['Global', 'Replicated', 'ReplicatedJob', 'GlobalJob'] as const).filter((m) => mode[m] !== undefined);
  if (given.length > 1) throw invalidParameter('must specify only one service mode');
  if (mode.Global !== undefined) return { Global: {} };
  if (mode.GlobalJob !== undefined) return { GlobalJob: {} };
  const job = object(mode.ReplicatedJob);
  if (job !== undefined) {
    const maxConcurrent = (job.MaxConcurrent as number | undefined) ?? 1;
    return { ReplicatedJob: { MaxConcurrent: maxConcurrent, TotalCompletions: (job.TotalCompletions as number | undefined) ?? maxConcurrent } };
  }
  return { Replicated: { Replicas: (object(mode.Replicated)?.Replicas as number | undefined) ?? 1 } };
}

/** One of Go's string constants, exactly; an empty string is the first, the default. */
function choice<T extends string>(names: readonly T[], value: string, refusal: string): T {
  if (value === '') return names[0]!;
  if (!names.includes(value as T)) throw invalidParameter(refusal);
  return value as T;
}

/**
 * A protobuf enum read from its name without case (the value map is keyed by the upper-case
 * name); an empty name is the zero value, the first. Any other name: `refusal`'s message, or the
 * zero value when it has none.
 */
function enumValue<T extends string>(names: readonly T[], value: string, refusal: () => string | undefined): T {
  const found = names.find((n) => n.toUpperCase() === value.toUpperCase());
  if (found !== undefined) return found;
  const message = value === '' ? undefined : refusal();
  if (message !== undefined) throw invalidParameter(message);
  return names[0]!;
}

/** The object without its undefined fields, as stored and compared. */
function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function object(v: unknown): GoValue | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as GoValue) : undefined;
}

function objects(v: unknown): GoValue[] {
  return Array.isArray(v) ? (v as GoValue[]) : [];
}

function string(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function number(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function nonZero(v: unknown): number | undefined {
  return typeof v === 'number' && v !== 0 ? v : undefined;
}

function strings(v: unknown): string[] | undefined {
  return nonEmpty(Array.isArray(v) ? (v as string[]) : []);
}

function stringMap(v: unknown): Record<string, string> | undefined {
  const map = object(v) as Record<string, string> | undefined;
  return map !== undefined && Object.keys(map).length > 0 ? map : undefined;
}

function nonEmpty<T>(list: T[] | undefined): T[] | undefined {
  return list !== undefined && list.length > 0 ? list : undefined;
}
