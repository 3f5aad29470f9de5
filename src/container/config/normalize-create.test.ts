import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CgroupFacts } from '../../system/cgroup-facts.js';
import { decodeCreateBody } from './create-body.js';
import { normalizeCreate, type CreateBehaviourName, type CreateLimits, type ImageRuntimeConfig } from './normalize-create.js';

const facts: CgroupFacts = {
  version: '1', memoryLimit: true, swapLimit: true, kernelMemory: true, kernelMemoryTcp: true, oomKillDisable: true,
  cpuCfsPeriod: true, cpuCfsQuota: true, cpuShares: true, cpuSet: true, pidsLimit: true, blkioWeight: false,
  blkioWeightDevice: false, blkioReadBpsDevice: true, blkioWriteBpsDevice: true, blkioReadIopsDevice: true, blkioWriteIopsDevice: true,
};
// this machine as the reference saw it: cgroup v1 without blkio weights, 2 CPUs, nofile 20000, no CAP_SYS_RESOURCE
const limits: CreateLimits = {
  cgroup: facts, memoryReservation: true, memorySwappiness: true, cpuRealtime: true, cgroupNamespaces: true, cpusetCpus: '0-1', cpusetMems: '0',
  rlimitHard: { nofile: 20000, nproc: 96551 }, cpuCount: 2, hasCapSysResource: false, logConfig: { Type: 'json-file', Config: {} },
};
const at: Record<'1.25' | '1.40' | '1.41', CreateBehaviourName[]> = {
  '1.25': ['defaultIpcModeShareable'],
  '1.40': ['kernelMemoryTcpField', 'bindNonRecursiveOption', 'capabilitiesField'],
  '1.41': ['kernelMemoryTcpField', 'bindNonRecursiveOption'],
};
const versions = ['1.25', '1.40', '1.41'] as const;
const image: ImageRuntimeConfig = { Cmd: ['sh'] };

function create(body: unknown, v: (typeof versions)[number] = '1.41', img: ImageRuntimeConfig | null = image) {
  return normalizeCreate({ body: decodeCreateBody(body), api: { has: (n) => at[v].includes(n) }, image: img, limits, dataRoot: '/var/lib/berth' });
}

describe('normalizeCreate', () => {
  for (const v of versions) {
    it(`at ${v}, a body without HostConfig gets the daemon defaults (IpcMode private, no Runtime), as on the reference`, () => {
      const r = create({ Image: 'bb:cmd' }, v);
      assert.deepEqual([r.hostConfig.IpcMode, r.hostConfig.CgroupnsMode, 'Runtime' in r.hostConfig, r.hostConfig.NetworkMode], ['private', 'host', false, 'default']);
      assert.deepEqual([r.config.Cmd, r.config.Image, r.config.Hostname, r.warnings], [['sh'], 'bb:cmd', '', []]);
    });
  }
  it('gives an empty HostConfig Runtime runc, and IpcMode shareable at 1.25 only', () => {
    assert.deepEqual(versions.map((v) => [create({ Image: 'x', HostConfig: {} }, v).hostConfig.IpcMode, create({ Image: 'x', HostConfig: {} }, v).hostConfig.Runtime]), [
      ['shareable', 'runc'], ['private', 'runc'], ['private', 'runc'],
    ]);
  });
  it('keeps KernelMemoryTCP and BindOptions.NonRecursive from 1.40 on', () => {
    const body = { Image: 'x', HostConfig: { KernelMemoryTCP: 10485760, Mounts: [{ Type: 'bind', Source: '/tmp', Target: '/m', BindOptions: { NonRecursive: true } }] } };
    assert.deepEqual(
      versions.map((v) => [create(body, v).hostConfig.KernelMemoryTCP, create(body, v).hostConfig.Mounts?.[0].BindOptions]),
      [[0, {}], [10485760, { NonRecursive: true }], [10485760, { NonRecursive: true }]],
    );
  });
  it('keeps Capabilities at 1.40 only', () => {
    const body = { Image: 'x', HostConfig: { Capabilities: ['CAP_CHOWN'] } };
    assert.deepEqual(versions.map((v) => create(body, v).hostConfig.Capabilities), [undefined, ['CAP_CHOWN'], undefined]);
    assert.throws(() => create({ Image: 'x', HostConfig: { Capabilities: ['CAP_CHOWN'], CapAdd: ['x'] } }, '1.40'), { kind: 'invalidParameter' });
  });
  it('merges the image config and stores the names as given', () => {
    const r = create({ Image: 'img', Env: ['A=9'], HostConfig: { CapAdd: ['net_admin'] } }, '1.41', { Cmd: ['sh'], Env: ['A=1', 'B=2'], User: 'nobody' });
    assert.deepEqual([r.config.Env, r.config.User, r.config.Image, r.hostConfig.CapAdd], [['A=9', 'B=2'], 'nobody', 'img', ['net_admin']]);
  });
  it('returns the warnings of what it dropped', () => {
    const r = create({ Image: 'x', HostConfig: { BlkioWeight: 500, CpuPercent: 5, NetworkMode: 'host', PortBindings: { '80/tcp': [{ HostPort: '80' }] } } });
    assert.deepEqual(r.warnings, [
      'linux does not support CPU percent. Percent discarded.',
      'Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.',
      'Published ports are discarded when using host network mode',
    ]);
    assert.equal(r.hostConfig.BlkioWeight, 0);
  });
  it('returns the mounts, binds first, with the data root rule applied', () => {
    const r = create({ Image: 'x', HostConfig: { Binds: ['/var:/v', 'vol:/w'], Mounts: [{ Type: 'tmpfs', Target: '/t' }] } });
    assert.deepEqual(r.mounts.map((m) => [m.type, m.destination, m.propagation]), [['bind', '/v', 'rslave'], ['volume', '/w', ''], ['tmpfs', '/t', '']]);
  });
  it('checks the top-level HostConfig fields of the legacy wrapper like an inner HostConfig', () => {
    assert.throws(() => create({ Image: 'x', Memory: 1000 }), { kind: 'invalidParameter', message: 'Minimum memory limit allowed is 6MB' });
  });
  it('refuses a ulimit the daemon cannot grant, at create rather than at start', () => {
    assert.throws(() => create({ Image: 'x', HostConfig: { Ulimits: [{ Name: 'nofile', Soft: 100, Hard: 30000 }] } }), {
      kind: 'invalidParameter',
      message: "ulimit nofile: hard limit 30000 is above the daemon's own hard limit 20000, which it cannot raise without CAP_SYS_RESOURCE",
    });
  });
  it('reports the first failure in dockerd order: the decoder checks before the others', () => {
    assert.throws(() => create({ Image: 'x', HostConfig: { IOMaximumIOps: 5, Memory: 1 } }), { kind: 'system' });
    assert.throws(() => create({ Image: 'x', WorkingDir: 'rel', HostConfig: { Memory: 1 } }), { message: "the working directory 'rel' is invalid, it needs to be an absolute path" });
  });
  it('refuses a container without a command, and checks the log config and sysctls', () => {
    assert.throws(() => create({ Image: '' }, '1.41', null), { kind: 'invalidParameter', message: 'No command specified' });
    assert.throws(() => create({ Image: 'x', HostConfig: { LogConfig: { Type: 'nosuch' } } }), { message: 'error looking up logging plugin nosuch: plugin "nosuch" not found' });
    assert.throws(() => create({ Image: 'x', HostConfig: { Sysctls: { 'kernel.foo': '1' } } }), { message: 'sysctl "kernel.foo" is not in a separate kernel namespace' });
  });
  it('refuses a bad NetworkingConfig', () => {
    assert.throws(() => create({ Image: 'x', NetworkingConfig: { EndpointsConfig: { a: {}, b: {} } } }), { message: 'Container cannot be connected to network endpoints: a, b' });
  });
});
