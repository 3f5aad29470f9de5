import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerSpec, TaskSpec } from '../swarm/services/service-types.js';
import type { CgroupFacts } from '../system/cgroup-facts.js';
import { CURRENT_API_BEHAVIOURS } from './config/create-behaviours.js';
import { normalizeCreate, type CreateLimits } from './config/normalize-create.js';
import { taskCreateBody, type TaskContainerInput } from './task-create-body.js';

const SYSTEM_LABELS = { 'com.docker.swarm.task': '', 'com.docker.swarm.task.id': 'tid', 'com.docker.swarm.service.name': 'web' };

function input(spec: Partial<ContainerSpec>, more: Partial<TaskContainerInput> & { task?: Partial<TaskSpec> } = {}): TaskContainerInput {
  const { task, ...rest } = more;
  return { labels: SYSTEM_LABELS, spec: { ForceUpdate: 0, ...task, ContainerSpec: { Image: 'busybox', Isolation: 'default', ...spec } }, hostPorts: [], ...rest };
}

describe('taskCreateBody', () => {
  it("maps the container spec's fields as dockerd's executor does", () => {
    const { config, hostConfig } = taskCreateBody(
      input(
        {
          Labels: { app: 'web', 'com.docker.swarm.task.id': 'spoofed' },
          Command: ['/bin/sh', '-c'],
          Args: ['echo hi'],
          Env: ['A=1'],
          Dir: '/srv',
          User: '1000:1000',
          Groups: ['wheel', '20'],
          Hostname: 'web-1',
          StopSignal: 'SIGUSR1',
          StopGracePeriod: 30_000_000_000,
          TTY: true,
          OpenStdin: true,
          ReadOnly: true,
          Init: true,
          Healthcheck: { Test: ['CMD', 'true'], Interval: 1_000_000_000, Timeout: 2_000_000_000, Retries: 3, StartPeriod: 4_000_000_000 },
          DNSConfig: { Nameservers: ['10.0.0.2'], Search: ['example.org'], Options: ['ndots:2'] },
          Hosts: ['10.0.0.5 db db.local', '  10.0.0.6   cache ', 'lonely'],
          Sysctls: { 'net.ipv4.ip_forward': '1' },
          CapabilityAdd: ['CAP_NET_ADMIN'],
          CapabilityDrop: ['CAP_CHOWN'],
          Ulimits: [{ Name: 'nofile', Soft: 100, Hard: 200 }],
        },
        { task: { Resources: { Limits: { NanoCPUs: 500_000_000, MemoryBytes: 64 << 20, Pids: 50 }, Reservations: { MemoryBytes: 1 << 20 } } } },
      ),
    );
    assert.deepEqual(config, {
      Labels: { app: 'web', ...SYSTEM_LABELS },
      StopSignal: 'SIGUSR1',
      Tty: true,
      OpenStdin: true,
      User: '1000:1000',
      Env: ['A=1'],
      Hostname: 'web-1',
      WorkingDir: '/srv',
      Image: 'busybox:latest',
      Healthcheck: { Test: ['CMD', 'true'], Interval: 1_000_000_000, Timeout: 2_000_000_000, Retries: 3, StartPeriod: 4_000_000_000 },
      Entrypoint: ['/bin/sh', '-c'],
      Cmd: ['echo hi'],
    });
    assert.deepEqual(hostConfig, {
      GroupAdd: ['wheel', '20'],
      PortBindings: {},
      Mounts: [],
      ReadonlyRootfs: true,
      Isolation: 'default',
      Init: true,
      Sysctls: { 'net.ipv4.ip_forward': '1' },
      CapAdd: ['CAP_NET_ADMIN'],
      CapDrop: ['CAP_CHOWN'],
      Ulimits: [{ Name: 'nofile', Soft: 100, Hard: 200 }],
      PidsLimit: 50,
      Memory: 64 << 20,
      NanoCpus: 500_000_000,
      Dns: ['10.0.0.2'],
      DnsSearch: ['example.org'],
      DnsOptions: ['ndots:2'],
      ExtraHosts: ['db:10.0.0.5', 'cache:10.0.0.6'],
    });
  });

  it("keeps the image's entrypoint for Args alone, and its whole command without either", () => {
    const argsOnly = taskCreateBody(input({ Args: ['-v'] })).config;
    assert.deepEqual([argsOnly.Entrypoint, argsOnly.Cmd], [undefined, ['-v']]);
    const neither = taskCreateBody(input({ Command: [], Args: [] })).config;
    assert.deepEqual([neither.Entrypoint, neither.Cmd], [undefined, undefined]);
    // a Command without Args runs without the image's Cmd
    const commandOnly = taskCreateBody(input({ Command: ['httpd'] })).config;
    assert.deepEqual([commandOnly.Entrypoint, commandOnly.Cmd], [['httpd'], []]);
  });

  it('names the image as the executor does: familiar, tagged, its digest kept', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.equal(taskCreateBody(input({ Image: 'docker.io/library/busybox' })).config.Image, 'busybox:latest');
    assert.equal(taskCreateBody(input({ Image: `busybox:1.36@${digest}` })).config.Image, `busybox:1.36@${digest}`);
    assert.equal(taskCreateBody(input({ Image: `localhost:5000/app@${digest}` })).config.Image, `localhost:5000/app@${digest}`);
    // what no reference is goes as given (the image lookup answers for it)
    assert.equal(taskCreateBody(input({ Image: 'Not A Reference' })).config.Image, 'Not A Reference');
  });

  it('exposes and binds the host-mode ports, any free host port for PublishedPort 0', () => {
    const { config, hostConfig } = taskCreateBody(
      input({}, {
        hostPorts: [
          { Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode: 'host' },
          { Protocol: 'udp', TargetPort: 53, PublishedPort: 0, PublishMode: 'host' },
          { Protocol: 'tcp', TargetPort: 443, PublishMode: 'host' },
        ],
      }),
    );
    assert.deepEqual(config.ExposedPorts, { '80/tcp': {}, '53/udp': {}, '443/tcp': {} });
    assert.deepEqual(hostConfig.PortBindings, { '80/tcp': [{ HostPort: '8080' }], '53/udp': [{}], '443/tcp': [{}] });
    assert.equal(taskCreateBody(input({})).config.ExposedPorts, undefined);
  });

  it('converts the mounts, leaving Consistency out', () => {
    const { hostConfig } = taskCreateBody(
      input({
        Mounts: [
          { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true, BindOptions: { Propagation: 'rslave', NonRecursive: true } },
          { Type: 'volume', Source: 'cache', Target: '/cache', VolumeOptions: { NoCopy: true, Labels: { a: 'b' }, DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs' } } } },
          { Type: 'volume', Target: '/anonymous' },
          { Type: 'tmpfs', Target: '/scratch', TmpfsOptions: { SizeBytes: 1 << 20, Mode: 0o1777 } },
        ],
      }),
    );
    assert.deepEqual(hostConfig.Mounts, [
      { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true, BindOptions: { Propagation: 'rslave', NonRecursive: true } },
      { Type: 'volume', Source: 'cache', Target: '/cache', ReadOnly: undefined, VolumeOptions: { NoCopy: true, Labels: { a: 'b' }, DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs' } } } },
      { Type: 'volume', Source: undefined, Target: '/anonymous', ReadOnly: undefined },
      { Type: 'tmpfs', Source: undefined, Target: '/scratch', ReadOnly: undefined, TmpfsOptions: { SizeBytes: 1 << 20, Mode: 0o1777 } },
    ]);
  });

  it("refuses what the executor refuses, in its words", () => {
    const refusals: Array<[TaskContainerInput, string]> = [
      [{ labels: {}, spec: { ForceUpdate: 0 }, hostPorts: [] }, 'exec: unsupported runtime'],
      [input({ Image: '' }), 'dockerexec: image required'],
      [input({ Mounts: [{ Type: 'volume', Source: 'v', Target: 'data' }] }), 'invalid mount target, must be an absolute path: data'],
      [input({ Mounts: [{ Type: 'bind', Source: 'srv', Target: '/data' }] }), 'invalid bind mount source, must be an absolute path: srv'],
      [input({ Mounts: [{ Type: 'volume', Source: '/srv', Target: '/data' }] }), 'invalid volume mount source, must not be an absolute path: /srv'],
      [input({ Mounts: [{ Type: 'tmpfs', Source: 'x', Target: '/data' }] }), 'invalid tmpfs source, source must be empty'],
      [input({ Mounts: [{ Type: 'npipe', Target: 'pipe' }] }), 'invalid npipe source, source must not be empty'],
      [input({ Mounts: [{ Type: 'cluster' as 'bind', Source: 'x', Target: '/data' }] }), 'invalid mount type: cluster'],
    ];
    for (const [given, message] of refusals) {
      assert.throws(() => taskCreateBody(given), (err: Error & { kind?: string }) => err.message === message && err.kind === 'invalidParameter', message);
    }
  });

  it('takes the log driver and a predefined network, and the SELinux context as labels', () => {
    const { hostConfig } = taskCreateBody(
      input({ Privileges: { CredentialSpec: null, SELinuxContext: { Disable: false, User: 'u', Role: 'r', Type: 't', Level: 's0' } } }, { logDriver: { Name: 'json-file', Options: { 'max-size': '1m' } }, networkMode: 'host' }),
    );
    assert.deepEqual(hostConfig.LogConfig, { Type: 'json-file', Config: { 'max-size': '1m' } });
    assert.equal(hostConfig.NetworkMode, 'host');
    assert.deepEqual(hostConfig.SecurityOpt, ['label=user:u', 'label=role:r', 'label=level:s0', 'label=type:t']);
    const plain = taskCreateBody(input({})).hostConfig;
    assert.deepEqual([plain.LogConfig, plain.NetworkMode, plain.SecurityOpt, plain.ExtraHosts, plain.Dns], [undefined, undefined, undefined, undefined, undefined]);
  });

  it('is a body create takes: no restart policy, no AutoRemove, no StopTimeout, the daemon\'s log driver', () => {
    const facts: CgroupFacts = {
      version: '2', memoryLimit: true, swapLimit: true, kernelMemory: false, kernelMemoryTcp: false, oomKillDisable: false,
      cpuCfsPeriod: true, cpuCfsQuota: true, cpuShares: true, cpuSet: true, pidsLimit: true, blkioWeight: true,
      blkioWeightDevice: true, blkioReadBpsDevice: true, blkioWriteBpsDevice: true, blkioReadIopsDevice: true, blkioWriteIopsDevice: true,
    };
    const limits: CreateLimits = {
      cgroup: facts, memoryReservation: true, memorySwappiness: false, cpuRealtime: false, cgroupNamespaces: true, cpusetCpus: '0-1', cpusetMems: '0',
      rlimitHard: { nofile: 1 << 20, nproc: 1 << 20 }, cpuCount: 2, hasCapSysResource: true, logConfig: { Type: 'json-file', Config: {} },
    };
    const body = taskCreateBody(input({ Args: ['sleep', '1'], StopGracePeriod: 5_000_000_000 }, { hostPorts: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 0, PublishMode: 'host' }] }));
    const { config, hostConfig, warnings } = normalizeCreate({ body: { ...body, networkingConfig: {} }, api: CURRENT_API_BEHAVIOURS, image: { Cmd: ['sh'] }, limits, dataRoot: '/var/lib/berth' });
    assert.deepEqual(warnings, []);
    assert.deepEqual(config.Cmd, ['sleep', '1']);
    assert.equal(config.StopTimeout, undefined);
    // unset, as dockerd keeps it for a task: the swarm restarts tasks, the engine never does
    assert.deepEqual(hostConfig.RestartPolicy, { Name: '', MaximumRetryCount: 0 });
    assert.equal(hostConfig.AutoRemove, false);
    assert.equal(hostConfig.Isolation, 'default');
    assert.deepEqual(hostConfig.LogConfig, { Type: 'json-file', Config: {} });
    assert.deepEqual(hostConfig.PortBindings, { '80/tcp': [{ HostIp: '', HostPort: '' }] });
  });
});
