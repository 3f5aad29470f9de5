import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../../errors.js';
import { parseConstraints } from './placement-constraints.js';
import { decodeServiceSpec } from './service-spec.js';
import { validateServiceSpec } from './service-validation.js';

const v141 = { has: () => true };

/** The spec of a body naming the service v1 and running busybox, with `task`, `container` and `rest` merged in. */
function spec(task: object = {}, container: object = {}, rest: object = {}) {
  return decodeServiceSpec({ Name: 'v1', TaskTemplate: { ContainerSpec: { Image: 'busybox', ...container }, ...task }, ...rest }, v141);
}

function refused(kind: EngineError['kind'], message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof EngineError, String(err));
    assert.equal(err.message, message);
    assert.equal(err.kind, kind);
    return true;
  };
}

// each message as the reference engine answered the body
const invalid: Array<[string, ReturnType<typeof spec>, string]> = [
  ['a name starting with a dash', { ...spec(), Name: '-bad' }, 'name must be valid as a DNS name component'],
  ['a dot in the name', { ...spec(), Name: 'a.b' }, 'name must be valid as a DNS name component'],
  ['a name ending with a dash', { ...spec(), Name: 'ok-' }, 'name must be valid as a DNS name component'],
  ['a name of 66 characters', { ...spec(), Name: 'a'.repeat(66) }, 'name must be 63 characters or fewer'],
  ['no image', spec({}, { Image: '' }), 'ContainerSpec: image reference must be provided'],
  ['an upper-case image', spec({}, { Image: 'BusyBox' }), 'ContainerSpec: "BusyBox" is not a valid repository/tag'],
  ['a space in the image', spec({}, { Image: 'a b' }), 'ContainerSpec: "a b" is not a valid repository/tag'],
  ['a short digest', spec({}, { Image: 'busybox@sha256:aaaa' }), 'ContainerSpec: "busybox@sha256:aaaa" is not a valid repository/tag'],
  ['an image ID', spec({}, { Image: '0'.repeat(64) }), `ContainerSpec: "${'0'.repeat(64)}" is not a valid repository/tag`],
  ['a template for the image', spec({}, { Image: '{{.Service.Name}}' }), 'ContainerSpec: "{{.Service.Name}}" is not a valid repository/tag'],
  ['too little memory', spec({ Resources: { Limits: { MemoryBytes: 100 } } }), 'invalid memory value 100: Must be at least 4MiB'],
  ['a negative reservation', spec({ Resources: { Reservations: { MemoryBytes: -5 } } }), 'invalid memory value -5: Must be at least 4MiB'],
  ['too little CPU', spec({ Resources: { Limits: { NanoCPUs: 1000 } } }), 'invalid cpu value 1e-06: Must be at least 0.001'],
  ['negative CPU', spec({ Resources: { Limits: { NanoCPUs: -1 } } }), 'invalid cpu value -1e-09: Must be at least 0.001'],
  ['a CPU fraction', spec({ Resources: { Limits: { NanoCPUs: 1500 } } }), 'invalid cpu value 1.5e-06: Must be at least 0.001'],
  ['a reserved CPU fraction', spec({ Resources: { Reservations: { NanoCPUs: 500000 } } }), 'invalid cpu value 0.0005: Must be at least 0.001'],
  ['a negative restart delay', spec({ RestartPolicy: { Delay: -1 } }), 'TaskSpec: restart-delay cannot be negative'],
  ['a negative restart window', spec({ RestartPolicy: { Window: -1 } }), 'TaskSpec: restart-window cannot be negative'],
  ['a negative update delay', spec({}, {}, { UpdateConfig: { Delay: -1 } }), 'TaskSpec: update-delay cannot be negative'],
  ['a negative update monitor', spec({}, {}, { UpdateConfig: { Monitor: -1 } }), 'TaskSpec: update-monitor cannot be negative'],
  ['a failure ratio above 1', spec({}, {}, { UpdateConfig: { MaxFailureRatio: 1.5 } }), 'TaskSpec: update-maxfailureratio cannot be less than 0 or bigger than 1'],
  ['a job with an update config', spec({}, {}, { Mode: { ReplicatedJob: {} }, UpdateConfig: {} }), 'Jobs may not have an update config'],
  ['2^63 replicas', spec({}, {}, { Mode: { Replicated: { Replicas: 2 ** 63 } } }), 'Number of replicas must be non-negative'],
  ['2^63 concurrent jobs', spec({}, {}, { Mode: { ReplicatedJob: { MaxConcurrent: 2 ** 63 } } }), 'Maximum concurrent jobs must not be negative'],
  ['2^63 completions', spec({}, {}, { Mode: { ReplicatedJob: { TotalCompletions: 2 ** 63 } } }), 'Total completed jobs must not be negative'],
  [
    'an ingress port with dnsrr',
    spec({}, {}, { EndpointSpec: { Mode: 'dnsrr', Ports: [{ TargetPort: 80, PublishedPort: 81 }] } }),
    "EndpointSpec: port published with ingress mode can't be used with dnsrr mode",
  ],
  [
    'a published port twice',
    spec({}, {}, { EndpointSpec: { Ports: [{ TargetPort: 80, PublishedPort: 81 }, { TargetPort: 82, PublishedPort: 81 }] } }),
    'EndpointSpec: duplicate published ports provided',
  ],
  [
    'a published port twice in host mode',
    spec({}, {}, { EndpointSpec: { Ports: [{ TargetPort: 80, PublishMode: 'host', PublishedPort: 9000 }, { TargetPort: 81, PublishMode: 'host', PublishedPort: 9000 }] } }),
    'EndpointSpec: duplicate published ports provided',
  ],
  [
    'a published port in both modes',
    spec({}, {}, { EndpointSpec: { Ports: [{ TargetPort: 80, PublishedPort: 9001 }, { TargetPort: 81, PublishMode: 'host', PublishedPort: 9001 }] } }),
    'EndpointSpec: duplicate published ports provided',
  ],
  ['a secret without ID', spec({}, { Secrets: [{ SecretID: '', SecretName: 'x' }] }), 'malformed secret reference'],
  ['a secret without target', spec({}, { Secrets: [{ SecretID: 'a', SecretName: 'x' }] }), 'malformed secret reference, no target provided'],
  ['a secret without file name', spec({}, { Secrets: [{ SecretID: 'a', SecretName: 'x', File: { Name: '' } }] }), 'malformed file secret reference, invalid target file name provided'],
  [
    'two secrets on one file',
    spec({}, { Secrets: [{ SecretID: 'a', SecretName: 'x', File: { Name: 'f' } }, { SecretID: 'b', SecretName: 'y', File: { Name: 'f' } }] }),
    "secret references 'x' and 'y' have a conflicting target: 'f'",
  ],
  ['a config without ID', spec({}, { Configs: [{ ConfigID: '', ConfigName: 'x', File: { Name: 'f' } }] }), 'malformed config reference'],
  ['a config without file name', spec({}, { Configs: [{ ConfigID: 'a', ConfigName: 'x', File: { Name: '' } }] }), 'malformed file config reference, invalid target file name provided'],
  [
    'two configs on one file',
    spec({}, { Configs: [{ ConfigID: 'a', ConfigName: 'x', File: { Name: 'f' } }, { ConfigID: 'b', ConfigName: 'y', File: { Name: 'f' } }] }),
    "config references 'x' and 'y' have a conflicting target: 'f'",
  ],
  [
    'a credential spec config not referenced',
    spec({}, { Privileges: { CredentialSpec: { Config: 'a' } } }),
    "CredentialSpec references config 'a', but that config isn't in config references with RuntimeTarget",
  ],
  [
    'a credential spec config referenced as a file',
    spec({}, { Privileges: { CredentialSpec: { Config: 'a' } }, Configs: [{ ConfigID: 'a', ConfigName: 'x', File: { Name: 'f' } }] }),
    "CredentialSpec references config 'a', but that config isn't in config references with RuntimeTarget",
  ],
  ['a mount point twice', spec({}, { Mounts: [{ Type: 'bind', Source: '/tmp', Target: '/x' }, { Type: 'volume', Target: '/x' }] }), 'ContainerSpec: duplicate mount point: /x'],
  ['a health interval under 1 ms', spec({}, { Healthcheck: { Interval: 100 } }), 'ContainerSpec: Interval in HealthConfig cannot be less than 1ms'],
  ['a negative health timeout', spec({}, { Healthcheck: { Timeout: -1 } }), 'ContainerSpec: Timeout in HealthConfig cannot be less than 1ms'],
  ['a health start period under 1 ms', spec({}, { Healthcheck: { StartPeriod: 100 } }), 'ContainerSpec: StartPeriod in HealthConfig cannot be less than 1ms'],
  ['negative health retries', spec({}, { Healthcheck: { Retries: -1 } }), 'ContainerSpec: Retries in HealthConfig cannot be negative'],
];

describe('validateServiceSpec', () => {
  for (const [what, s, message] of invalid) {
    it(`refuses ${what}`, () => assert.throws(() => validateServiceSpec(s), refused('invalidParameter', `rpc error: code = InvalidArgument desc = ${message}`)));
  }

  it('refuses a bad constraint as a gRPC Unknown, a 500', () => {
    assert.throws(() => validateServiceSpec(spec({ Placement: { Constraints: ['node.role'] } })), refused('system', 'rpc error: code = Unknown desc = constraint expected one operator from ==, !='));
  });

  it('checks in swarmkit order: resources before the image', () => {
    assert.throws(() => validateServiceSpec(spec({ Resources: { Limits: { MemoryBytes: 1 } } }, { Image: '' })), /invalid memory value 1/);
  });

  const accepted: Array<[string, ReturnType<typeof spec>]> = [
    ['underscores and dashes inside the name', { ...spec(), Name: 'a__b-c_d' }],
    ['a negative rollback delay (never checked)', spec({}, {}, { RollbackConfig: { Delay: -1, MaxFailureRatio: 5 } })],
    ['one published port per protocol', spec({}, {}, { EndpointSpec: { Ports: [{ TargetPort: 80, PublishedPort: 81 }, { TargetPort: 82, PublishedPort: 81, Protocol: 'udp' }] } })],
    ['host ports with dnsrr', spec({}, {}, { EndpointSpec: { Mode: 'dnsrr', Ports: [{ TargetPort: 80, PublishMode: 'host', PublishedPort: 9000 }] } })],
    ['an unknown constraint key', spec({ Placement: { Constraints: ['foo.bar==x'] } })],
    ['a mount without target', spec({}, { Mounts: [{ Type: 'bind' }] })],
    ['any Hosts entry', spec({}, { Hosts: ['bad'] })],
    ['a one-millisecond interval', spec({}, { Healthcheck: { Interval: 1_000_000, Test: ['NONE'] } })],
    ['a credential spec config with a runtime target', spec({}, { Privileges: { CredentialSpec: { Config: 'a' } }, Configs: [{ ConfigID: 'a', ConfigName: 'x', Runtime: {} }] })],
    ['a digest and a tag', spec({}, { Image: `busybox:tag@sha256:${'0123456789'.repeat(6)}0123` })],
  ];
  for (const [what, s] of accepted) {
    it(`accepts ${what}`, () => validateServiceSpec(s));
  }
});

describe("port names (berth's own check: each will be a label of a DNS SRV name)", () => {
  const named = (...names: string[]) => spec({}, {}, { EndpointSpec: { Ports: names.map((Name, i) => ({ Name, TargetPort: 80 + i })) } });
  const rule = 'use at most 63 letters, digits and hyphens, starting and ending with a letter or digit';

  it('accepts RFC 1123 labels of any case, and no name', () => {
    validateServiceSpec(named('http', 'HTTP-2', '9p', 'x'.repeat(63), ''));
    validateServiceSpec(spec({}, {}, { EndpointSpec: { Ports: [{ TargetPort: 80 }] } }));
  });

  for (const [name, quoted] of [
    ['-http', '"-http"'],
    ['http-', '"http-"'],
    ['ht_tp', '"ht_tp"'],
    ['_http', '"_http"'],
    ['ht.tp', '"ht.tp"'],
    ['ht tp', '"ht tp"'],
    ['hé', '"hé"'],
    ['a\nb', '"a\\nb"'],
    ['x'.repeat(64), `"${'x'.repeat(64)}"`],
  ]) {
    it(`refuses the port name ${quoted}`, () =>
      assert.throws(() => validateServiceSpec(named('ok', name!)), refused('invalidParameter', `rpc error: code = InvalidArgument desc = EndpointSpec: port name ${quoted} is not a valid DNS label: ${rule}`)));
  }
});

describe('parseConstraints', () => {
  it('reads key==value and key!=value, trimmed', () => {
    assert.deepEqual(parseConstraints([' node.role == manager', 'node.labels.a!=b c']), [
      { key: 'node.role', operator: '==', value: 'manager' },
      { key: 'node.labels.a', operator: '!=', value: 'b c' },
    ]);
  });

  it('looks for == first', () => {
    assert.throws(() => parseConstraints(['a!=b==c']), refused('system', "rpc error: code = Unknown desc = key 'a!=b' is invalid"));
  });

  const refusedExprs: Array<[string, string]> = [
    ['node.role', 'constraint expected one operator from ==, !='],
    ['node role==x', "key 'node role' is invalid"],
    ['==x', "key '' is invalid"],
    ['a==x', "key 'a' is invalid"],
    ['node.role==x<y', "value 'x<y' is invalid"],
    ['node.role==', "value '' is invalid"],
  ];
  for (const [expr, message] of refusedExprs) {
    it(`refuses ${expr}`, () => assert.throws(() => parseConstraints([expr]), refused('system', `rpc error: code = Unknown desc = ${message}`)));
  }
});
