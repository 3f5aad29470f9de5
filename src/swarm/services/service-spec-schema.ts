// dockerd 20.10's types.ServiceSpec as Go types (api/types/swarm, mount, container.HealthConfig,
// go-units' Ulimit), for decoding a create or update body with Go's field names and errors.
import type { GoStruct, GoType } from '../../lib/go-json-decode.js';

const strings: GoType = { slice: 'string' };
const labels: GoType = { map: 'string' };
const duration: GoType = { named: 'time.Duration', of: 'int64' };
const fileMode: GoType = { named: 'fs.FileMode', of: 'uint32' };

const driver = (pkg: string): GoStruct => ({ struct: `${pkg}.Driver`, fields: { Name: 'string', Options: labels } });

const mount: GoStruct = {
  struct: 'mount.Mount',
  fields: {
    Type: { named: 'mount.Type', of: 'string' },
    Source: 'string',
    Target: 'string',
    ReadOnly: 'bool',
    Consistency: { named: 'mount.Consistency', of: 'string' },
    BindOptions: { struct: 'mount.BindOptions', fields: { Propagation: { named: 'mount.Propagation', of: 'string' }, NonRecursive: 'bool' } },
    VolumeOptions: { struct: 'mount.VolumeOptions', fields: { NoCopy: 'bool', Labels: labels, DriverConfig: driver('mount') } },
    TmpfsOptions: { struct: 'mount.TmpfsOptions', fields: { SizeBytes: 'int64', Mode: fileMode } },
  },
};

const fileTarget = (struct: string): GoStruct => ({ struct, fields: { Name: 'string', UID: 'string', GID: 'string', Mode: fileMode } });

const containerSpec: GoStruct = {
  struct: 'swarm.ContainerSpec',
  fields: {
    Image: 'string',
    Labels: labels,
    Command: strings,
    Args: strings,
    Hostname: 'string',
    Env: strings,
    Dir: 'string',
    User: 'string',
    Groups: strings,
    Privileges: {
      struct: 'swarm.Privileges',
      fields: {
        CredentialSpec: { struct: 'swarm.CredentialSpec', fields: { Config: 'string', File: 'string', Registry: 'string' } },
        SELinuxContext: { struct: 'swarm.SELinuxContext', fields: { Disable: 'bool', User: 'string', Role: 'string', Type: 'string', Level: 'string' } },
      },
    },
    Init: 'bool',
    StopSignal: 'string',
    TTY: 'bool',
    OpenStdin: 'bool',
    ReadOnly: 'bool',
    Mounts: { slice: mount },
    StopGracePeriod: duration,
    Healthcheck: { struct: 'container.HealthConfig', fields: { Test: strings, Interval: duration, Timeout: duration, StartPeriod: duration, Retries: 'int' } },
    Hosts: strings,
    DNSConfig: { struct: 'swarm.DNSConfig', fields: { Nameservers: strings, Search: strings, Options: strings } },
    Secrets: { slice: { struct: 'swarm.SecretReference', fields: { File: fileTarget('swarm.SecretReferenceFileTarget'), SecretID: 'string', SecretName: 'string' } } },
    Configs: {
      slice: {
        struct: 'swarm.ConfigReference',
        fields: { File: fileTarget('swarm.ConfigReferenceFileTarget'), Runtime: { struct: 'swarm.ConfigReferenceRuntimeTarget', fields: {} }, ConfigID: 'string', ConfigName: 'string' },
      },
    },
    Isolation: { named: 'container.Isolation', of: 'string' },
    Sysctls: labels,
    CapabilityAdd: strings,
    CapabilityDrop: strings,
    Ulimits: { slice: { struct: 'units.Ulimit', fields: { Name: 'string', Hard: 'int64', Soft: 'int64' } } },
  },
};

const networkAttachment: GoType = { slice: { struct: 'swarm.NetworkAttachmentConfig', fields: { Target: 'string', Aliases: strings, DriverOpts: labels } } };

const taskSpec: GoStruct = {
  struct: 'swarm.TaskSpec',
  fields: {
    ContainerSpec: containerSpec,
    // a protobuf message berth does not run: only its being there counts
    PluginSpec: { struct: 'runtime.PluginSpec', fields: {} },
    NetworkAttachmentSpec: { struct: 'swarm.NetworkAttachmentSpec', fields: { ContainerID: 'string' } },
    Resources: {
      struct: 'swarm.ResourceRequirements',
      fields: {
        Limits: { struct: 'swarm.Limit', fields: { NanoCPUs: 'int64', MemoryBytes: 'int64', Pids: 'int64' } },
        Reservations: {
          struct: 'swarm.Resources',
          fields: {
            NanoCPUs: 'int64',
            MemoryBytes: 'int64',
            GenericResources: {
              slice: {
                struct: 'swarm.GenericResource',
                fields: {
                  NamedResourceSpec: { struct: 'swarm.NamedGenericResource', fields: { Kind: 'string', Value: 'string' } },
                  DiscreteResourceSpec: { struct: 'swarm.DiscreteGenericResource', fields: { Kind: 'string', Value: 'int64' } },
                },
              },
            },
          },
        },
      },
    },
    RestartPolicy: {
      struct: 'swarm.RestartPolicy',
      fields: { Condition: { named: 'swarm.RestartPolicyCondition', of: 'string' }, Delay: duration, MaxAttempts: 'uint64', Window: duration },
    },
    Placement: {
      struct: 'swarm.Placement',
      fields: {
        Constraints: strings,
        Preferences: { slice: { struct: 'swarm.PlacementPreference', fields: { Spread: { struct: 'swarm.SpreadOver', fields: { SpreadDescriptor: 'string' } } } } },
        MaxReplicas: 'uint64',
        Platforms: { slice: { struct: 'swarm.Platform', fields: { Architecture: 'string', OS: 'string' } } },
      },
    },
    Networks: networkAttachment,
    LogDriver: driver('swarm'),
    ForceUpdate: 'uint64',
    Runtime: { named: 'swarm.RuntimeType', of: 'string' },
  },
};

const updateConfig: GoStruct = {
  struct: 'swarm.UpdateConfig',
  fields: { Parallelism: 'uint64', Delay: duration, FailureAction: 'string', Monitor: duration, MaxFailureRatio: 'float32', Order: 'string' },
};

export const SERVICE_SPEC: GoStruct = {
  struct: 'swarm.ServiceSpec',
  fields: {
    // Annotations' fields, promoted: Go names them ServiceSpec.Name
    Name: 'string',
    Labels: labels,
    TaskTemplate: taskSpec,
    Mode: {
      struct: 'swarm.ServiceMode',
      fields: {
        Replicated: { struct: 'swarm.ReplicatedService', fields: { Replicas: 'uint64' } },
        Global: { struct: 'swarm.GlobalService', fields: {} },
        ReplicatedJob: { struct: 'swarm.ReplicatedJob', fields: { MaxConcurrent: 'uint64', TotalCompletions: 'uint64' } },
        GlobalJob: { struct: 'swarm.GlobalJob', fields: {} },
      },
    },
    UpdateConfig: updateConfig,
    RollbackConfig: updateConfig,
    Networks: networkAttachment,
    EndpointSpec: {
      struct: 'swarm.EndpointSpec',
      fields: {
        Mode: { named: 'swarm.ResolutionMode', of: 'string' },
        Ports: {
          slice: {
            struct: 'swarm.PortConfig',
            fields: {
              Name: 'string',
              Protocol: { named: 'swarm.PortConfigProtocol', of: 'string' },
              TargetPort: 'uint32',
              PublishedPort: 'uint32',
              PublishMode: { named: 'swarm.PortConfigPublishMode', of: 'string' },
            },
          },
        },
      },
    },
  },
};
