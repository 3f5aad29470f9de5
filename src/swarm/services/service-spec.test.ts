import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EngineError } from '../../errors.js';
import { adjustForAPIVersion, decodeServiceSpec, withDefaults, type ServiceBehaviourName, type ServiceBehaviours } from './service-spec.js';
import { validateServiceSpec } from './service-validation.js';

// Bodies sent to dockerd 20.10 and what it answered for each (GET /services/{id}, with and
// without insertDefaults), recorded from the reference engine.
interface Case {
  name: string;
  body: unknown;
  service: string;
  insertDefaults: string;
}
const cases = JSON.parse(readFileSync(new URL('../../../../test/fixtures/dockerd-services.json', import.meta.url), 'utf8')) as Case[];

const at = (...names: ServiceBehaviourName[]): ServiceBehaviours => ({ has: (name) => names.includes(name) });
const v141 = at('serviceSysctlsAndMaxReplicas', 'serviceCapabilitiesUlimitsAndJobs');
const v140 = at('serviceSysctlsAndMaxReplicas');
const v139 = at();

function refusal(kind: EngineError['kind'], message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof EngineError, String(err));
    assert.equal(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  };
}

describe('decodeServiceSpec: the spec as dockerd shows it', () => {
  for (const c of cases) {
    it(c.name, () => {
      const spec = decodeServiceSpec(c.body, v141);
      assert.deepEqual(spec, (JSON.parse(c.service) as { Spec: unknown }).Spec);
      validateServiceSpec(spec);
    });
  }

  it('names a service without a name as dockerd names containers', () => {
    assert.match(decodeServiceSpec({ TaskTemplate: { ContainerSpec: { Image: 'busybox' } } }, v141).Name, /^[a-z]+_[a-z]+$/);
  });
});

describe('withDefaults: ?insertDefaults=true', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(withDefaults(decodeServiceSpec(c.body, v141)), (JSON.parse(c.insertDefaults) as { Spec: unknown }).Spec);
    });
  }
});

describe('decodeServiceSpec: refusals in dockerd words', () => {
  const image = { ContainerSpec: { Image: 'busybox' } };
  const refused: Array<[string, unknown, string]> = [
    ['no body', undefined, 'got EOF while reading request body'],
    ['null', null, 'mismatched Runtime and *Spec fields'],
    ['a list', [], 'json: cannot unmarshal array into Go value of type swarm.ServiceSpec'],
    ['a string', 'x', 'json: cannot unmarshal string into Go value of type swarm.ServiceSpec'],
    ['a number for Name', { Name: 1 }, 'json: cannot unmarshal number into Go struct field ServiceSpec.Name of type string'],
    ['a number label', { Labels: { a: 1 } }, 'json: cannot unmarshal number into Go struct field ServiceSpec.Labels of type string'],
    ['a string TaskTemplate', { TaskTemplate: 'x' }, 'json: cannot unmarshal string into Go struct field ServiceSpec.TaskTemplate of type swarm.TaskSpec'],
    ['a number Image', { TaskTemplate: { ContainerSpec: { Image: 5 } } }, 'json: cannot unmarshal number into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Image of type string'],
    ['keys of any case', { name: 'x', taskTemplate: { containerSpec: { image: 5 } } }, 'json: cannot unmarshal number into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Image of type string'],
    ['negative replicas', { Mode: { Replicated: { Replicas: -1 } } }, 'json: cannot unmarshal number -1 into Go struct field ReplicatedService.Mode.Replicated.Replicas of type uint64'],
    ['fractional replicas', { Mode: { Replicated: { Replicas: 1.5 } } }, 'json: cannot unmarshal number 1.5 into Go struct field ReplicatedService.Mode.Replicated.Replicas of type uint64'],
    ['a duration string', { UpdateConfig: { Delay: '5s' } }, 'json: cannot unmarshal string into Go struct field UpdateConfig.UpdateConfig.Delay of type time.Duration'],
    ['a string ratio', { UpdateConfig: { MaxFailureRatio: 'x' } }, 'json: cannot unmarshal string into Go struct field UpdateConfig.UpdateConfig.MaxFailureRatio of type float32'],
    ['a number mount type', { TaskTemplate: { ContainerSpec: { Mounts: [{ Type: 3 }] } } }, 'json: cannot unmarshal number into Go struct field Mount.TaskTemplate.ContainerSpec.Mounts.Type of type mount.Type'],
    ['a string for Mounts', { TaskTemplate: { ContainerSpec: { Mounts: 'x' } } }, 'json: cannot unmarshal string into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Mounts of type []mount.Mount'],
    ['a number mount', { TaskTemplate: { ContainerSpec: { Mounts: [5] } } }, 'json: cannot unmarshal number into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Mounts of type mount.Mount'],
    ['a number ulimit name', { TaskTemplate: { ContainerSpec: { Ulimits: [{ Name: 1 }] } } }, 'json: cannot unmarshal number into Go struct field Ulimit.TaskTemplate.ContainerSpec.Ulimits.Name of type string'],
    ['a string retries', { TaskTemplate: { ContainerSpec: { Healthcheck: { Retries: 'x' } } } }, 'json: cannot unmarshal string into Go struct field HealthConfig.TaskTemplate.ContainerSpec.Healthcheck.Retries of type int'],
    ['a string Init', { TaskTemplate: { ContainerSpec: { Init: 'x' } } }, 'json: cannot unmarshal string into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Init of type bool'],
    ['a string Command', { TaskTemplate: { ContainerSpec: { Command: 'x' } } }, 'json: cannot unmarshal string into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Command of type []string'],
    ['a number Global', { Mode: { Global: 5 } }, 'json: cannot unmarshal number into Go struct field ServiceMode.Mode.Global of type swarm.GlobalService'],
    ['a negative port', { EndpointSpec: { Ports: [{ TargetPort: -1 }] } }, 'json: cannot unmarshal number -1 into Go struct field PortConfig.EndpointSpec.Ports.TargetPort of type uint32'],
    ['a negative ForceUpdate', { TaskTemplate: { ForceUpdate: -1 } }, 'json: cannot unmarshal number -1 into Go struct field TaskSpec.TaskTemplate.ForceUpdate of type uint64'],
    ['a string NanoCPUs', { TaskTemplate: { Resources: { Limits: { NanoCPUs: '1' } } } }, 'json: cannot unmarshal string into Go struct field Limit.TaskTemplate.Resources.Limits.NanoCPUs of type int64'],
    ['the first error in the body', { TaskTemplate: 'x', Name: 1 }, 'json: cannot unmarshal string into Go struct field ServiceSpec.TaskTemplate of type swarm.TaskSpec'],
    ['no ContainerSpec', { Name: 'x', TaskTemplate: {} }, 'mismatched Runtime and *Spec fields'],
    ['a plugin without its spec', { TaskTemplate: { ...image, Runtime: 'plugin' } }, 'mismatched Runtime and *Spec fields'],
    ['the attachment runtime', { TaskTemplate: { ...image, Runtime: 'attachment' } }, 'unsupported runtime'],
    ['an unknown runtime', { TaskTemplate: { ...image, Runtime: 'foo' } }, 'unsupported runtime'],
    ['an empty credential spec', { TaskTemplate: { ContainerSpec: { Image: 'busybox', Privileges: { CredentialSpec: {} } } } }, 'invalid CredentialSpec: must either provide "file", "registry", or "config" for credential spec'],
    [
      'two credential specs',
      { TaskTemplate: { ContainerSpec: { Image: 'busybox', Privileges: { CredentialSpec: { File: 'a', Registry: 'b' } } } } },
      'invalid CredentialSpec: cannot specify both "file" and "registry" credential specs',
    ],
    [
      'three credential specs',
      { TaskTemplate: { ContainerSpec: { Image: 'busybox', Privileges: { CredentialSpec: { File: 'a', Registry: 'b', Config: 'c' } } } } },
      'invalid CredentialSpec: cannot specify both "config", "file", and "registry" credential specs',
    ],
    ['a config without target', { TaskTemplate: { ContainerSpec: { Image: 'busybox', Configs: [{ ConfigID: 'a', ConfigName: 'x' }] } } }, 'invalid Config: either File or Runtime should be set'],
    [
      'a config with two targets',
      { TaskTemplate: { ContainerSpec: { Image: 'busybox', Configs: [{ ConfigID: 'a', ConfigName: 'x', File: { Name: 'f' }, Runtime: {} }] } } },
      'invalid Config: cannot specify both File and Runtime',
    ],
    ['an unknown mount type', { TaskTemplate: { ContainerSpec: { Image: 'busybox', Mounts: [{ Type: 'foo', Target: '/x' }] } } }, 'invalid MountType: "foo"'],
    ['an unknown propagation', { TaskTemplate: { ContainerSpec: { Image: 'busybox', Mounts: [{ Type: 'bind', Target: '/x', BindOptions: { Propagation: 'bad' } }] } } }, 'invalid MountPropagation: "bad"'],
    ['an unknown restart condition', { TaskTemplate: { ...image, RestartPolicy: { Condition: 'always' } } }, 'invalid RestartCondition: "always"'],
    ['an unknown failure action', { TaskTemplate: image, UpdateConfig: { FailureAction: 'x' } }, 'unrecognized update failure action x'],
    ['an unknown order', { TaskTemplate: image, UpdateConfig: { Order: 'x' } }, 'unrecognized update order x'],
    ['a rollback config too', { TaskTemplate: image, RollbackConfig: { Order: 'y' } }, 'unrecognized update order y'],
    ['an unknown resolution mode', { TaskTemplate: image, EndpointSpec: { Mode: 'x' } }, 'invalid resolution mode: "x"'],
    ['two modes', { TaskTemplate: image, Mode: { Replicated: {}, Global: {} } }, 'must specify only one service mode'],
    ['two job modes', { TaskTemplate: image, Mode: { ReplicatedJob: {}, GlobalJob: {} } }, 'must specify only one service mode'],
    ['a replicated plugin', { TaskTemplate: { PluginSpec: { Name: 'x' }, Runtime: 'plugin' }, Mode: { Replicated: {} } }, 'plugins must not use replicated mode'],
  ];
  for (const [what, body, message] of refused) {
    it(what, () => assert.throws(() => decodeServiceSpec(body, v141), refusal('invalidParameter', message)));
  }

  it('refuses a plugin as a daemon without experimental features does (500)', () => {
    assert.throws(
      () => decodeServiceSpec({ Name: 'v1', TaskTemplate: { PluginSpec: { Name: 'x' }, Runtime: 'plugin' } }, v141),
      refusal('system', 'runtime type "plugin" only supported in experimental'),
    );
  });

  it('takes a null secret reference as an empty one (dockerd panics)', () => {
    const spec = decodeServiceSpec({ Name: 'x', TaskTemplate: { ContainerSpec: { Image: 'busybox', Secrets: [null] } } }, v141);
    assert.throws(() => validateServiceSpec(spec), refusal('invalidParameter', 'rpc error: code = InvalidArgument desc = malformed secret reference'));
  });
});

describe('adjustForAPIVersion', () => {
  const container = {
    Image: 'busybox',
    CapabilityAdd: ['X'],
    CapabilityDrop: ['Y'],
    Sysctls: { a: 'b' },
    Ulimits: [{ Name: 'nofile', Soft: 1, Hard: 2 }],
  };
  const body = () => ({
    Name: 'a',
    TaskTemplate: { ContainerSpec: structuredClone(container), Resources: { Limits: { Pids: 5 } }, Placement: { MaxReplicas: 2 } },
    Mode: { ReplicatedJob: { MaxConcurrent: 2 } },
  });

  it('keeps everything at 1.41', () => {
    const spec = decodeServiceSpec(body(), v141);
    assert.deepEqual(spec.TaskTemplate.ContainerSpec?.CapabilityAdd, ['X']);
    assert.deepEqual(spec.TaskTemplate.Resources, { Limits: { Pids: 5 } });
    assert.deepEqual(spec.Mode, { ReplicatedJob: { MaxConcurrent: 2, TotalCompletions: 2 } });
  });

  it('drops capabilities, ulimits, the pids limit and jobs below 1.41 (as the reference did at 1.40)', () => {
    const spec = decodeServiceSpec(body(), v140);
    const c = spec.TaskTemplate.ContainerSpec!;
    assert.equal(c.CapabilityAdd, undefined);
    assert.equal(c.CapabilityDrop, undefined);
    assert.equal(c.Ulimits, undefined);
    assert.deepEqual(c.Sysctls, { a: 'b' });
    assert.deepEqual(spec.TaskTemplate.Resources, { Limits: {} });
    assert.deepEqual(spec.TaskTemplate.Placement, { MaxReplicas: 2 });
    assert.deepEqual(spec.Mode, { Replicated: { Replicas: 1 } });
  });

  it('drops sysctls, the credential spec config, config runtime targets and max replicas below 1.40', () => {
    const raw = { TaskTemplate: { ContainerSpec: { Image: 'busybox', Sysctls: { a: 'b' }, Privileges: { CredentialSpec: { Config: 'c1', File: 'f' } } }, Placement: { MaxReplicas: 2 } } };
    adjustForAPIVersion(v139, raw);
    assert.deepEqual(raw.TaskTemplate, { ContainerSpec: { Image: 'busybox', Privileges: { CredentialSpec: { File: 'f' } } }, Placement: {} });
    const configs = { Name: 'a', TaskTemplate: { ContainerSpec: { Image: 'busybox', Configs: [{ ConfigID: 'a', ConfigName: 'b', Runtime: {} }] } } };
    assert.throws(() => decodeServiceSpec(configs, v139), refusal('invalidParameter', 'invalid Config: either File or Runtime should be set'));
  });
});
