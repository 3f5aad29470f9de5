import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CreateBehaviours, CreateBehaviourName } from './create-behaviours.js';
import { adjustForApiVersion, fillHostConfigDefaults, shapeConfig, shapeHostConfig } from './host-config-defaults.js';
import type { HostConfig } from './types.js';

// the behaviours of src/api/api-version.ts at each version (src/container may not import src/api)
const at: Record<'1.25' | '1.40' | '1.41', CreateBehaviourName[]> = {
  '1.25': ['defaultIpcModeShareable'],
  '1.40': ['kernelMemoryTcpField', 'bindNonRecursiveOption', 'capabilitiesField'],
  '1.41': ['kernelMemoryTcpField', 'bindNonRecursiveOption'],
};
const api = (v: keyof typeof at): CreateBehaviours => ({ has: (n) => at[v].includes(n) });

/** HostConfig in inspect for `{"Image":"bb:cmd"}` on the reference (cgroup v1), the same at all three versions. */
const referenceMinimal = {"AutoRemove":false,"Binds":null,"BlkioDeviceReadBps":null,"BlkioDeviceReadIOps":null,"BlkioDeviceWriteBps":null,"BlkioDeviceWriteIOps":null,"BlkioWeight":0,"BlkioWeightDevice":null,"CapAdd":null,"CapDrop":null,"Cgroup":"","CgroupParent":"","CgroupnsMode":"host","ConsoleSize":[0,0],"ContainerIDFile":"","CpuCount":0,"CpuPercent":0,"CpuPeriod":0,"CpuQuota":0,"CpuRealtimePeriod":0,"CpuRealtimeRuntime":0,"CpuShares":0,"CpusetCpus":"","CpusetMems":"","DeviceCgroupRules":null,"DeviceRequests":null,"Devices":null,"Dns":null,"DnsOptions":null,"DnsSearch":null,"ExtraHosts":null,"GroupAdd":null,"IOMaximumBandwidth":0,"IOMaximumIOps":0,"IpcMode":"private","Isolation":"","KernelMemory":0,"KernelMemoryTCP":0,"Links":null,"LogConfig":{"Config":{},"Type":"json-file"},"MaskedPaths":["/proc/asound","/proc/acpi","/proc/kcore","/proc/keys","/proc/latency_stats","/proc/timer_list","/proc/timer_stats","/proc/sched_debug","/proc/scsi","/sys/firmware"],"Memory":0,"MemoryReservation":0,"MemorySwap":0,"MemorySwappiness":null,"NanoCpus":0,"NetworkMode":"default","OomKillDisable":false,"OomScoreAdj":0,"PidMode":"","PidsLimit":null,"PortBindings":null,"Privileged":false,"PublishAllPorts":false,"ReadonlyPaths":["/proc/bus","/proc/fs","/proc/irq","/proc/sys","/proc/sysrq-trigger"],"ReadonlyRootfs":false,"RestartPolicy":{"MaximumRetryCount":0,"Name":""},"SecurityOpt":null,"ShmSize":67108864,"UTSMode":"","Ulimits":null,"UsernsMode":"","VolumeDriver":"","VolumesFrom":null};

describe('adjustForApiVersion', () => {
  const body = (): HostConfig => ({ KernelMemoryTCP: 10485760, Mounts: [{ Type: 'bind', Source: '/var', Target: '/x', BindOptions: { NonRecursive: true } }] });
  it('at 1.25: IpcMode shareable, KernelMemoryTCP 0, NonRecursive dropped', () => {
    const hc = body();
    adjustForApiVersion(hc, api('1.25'));
    assert.deepEqual([hc.IpcMode, hc.KernelMemoryTCP, hc.Mounts?.[0].BindOptions], ['shareable', 0, {}]);
  });
  for (const v of ['1.40', '1.41'] as const) {
    it(`at ${v}: IpcMode left for the daemon default, KernelMemoryTCP and NonRecursive kept`, () => {
      const hc = body();
      adjustForApiVersion(hc, api(v));
      assert.deepEqual([hc.IpcMode, hc.KernelMemoryTCP, hc.Mounts?.[0].BindOptions], [undefined, 10485760, { NonRecursive: true }]);
    });
  }
  it('keeps an IpcMode given at 1.25', () => {
    const hc: HostConfig = { IpcMode: 'private' };
    adjustForApiVersion(hc, api('1.25'));
    assert.equal(hc.IpcMode, 'private');
  });
  for (const v of ['1.25', '1.40', '1.41'] as const) {
    it(`at ${v}: PidsLimit 0 and negative mean unlimited (null), as the reference stores them`, () => {
      for (const limit of [0, -1, -7]) {
        const hc: HostConfig = { PidsLimit: limit };
        adjustForApiVersion(hc, api(v));
        assert.equal(hc.PidsLimit, null);
      }
      const hc: HostConfig = { PidsLimit: 50 };
      adjustForApiVersion(hc, api(v));
      assert.equal(hc.PidsLimit, 50);
    });
  }
});

describe('fillHostConfigDefaults and shapeHostConfig', () => {
  it("give the reference's HostConfig for an empty one, on cgroup v1", () => {
    const hc: HostConfig = { LogConfig: { Type: 'json-file', Config: {} } };
    fillHostConfigDefaults(hc, '1');
    assert.deepEqual(shapeHostConfig(hc), referenceMinimal);
  });
  it('default the cgroup namespace to private on cgroup v2', () => {
    const hc: HostConfig = {};
    fillHostConfigDefaults(hc, '2');
    assert.equal(hc.CgroupnsMode, 'private');
  });
  it('give swap twice the memory', () => {
    const hc: HostConfig = { Memory: 10485760 };
    fillHostConfigDefaults(hc, '1');
    assert.equal(hc.MemorySwap, 20971520);
  });
  it('disable labels for host IPC, host PID or privileged, after the options given', () => {
    for (const hc of [{ IpcMode: 'host', SecurityOpt: ['no-new-privileges'] }, { PidMode: 'host' }, { Privileged: true }] as HostConfig[]) {
      fillHostConfigDefaults(hc, '1');
      assert.equal(hc.SecurityOpt?.at(-1), 'label=disable');
    }
  });
  it('leave masked and read-only paths unset when privileged, and keep those given', () => {
    const p: HostConfig = { Privileged: true, MaskedPaths: ['/y'] };
    fillHostConfigDefaults(p, '1');
    assert.deepEqual([p.MaskedPaths, p.ReadonlyPaths], [['/y'], undefined]);
    const q: HostConfig = { MaskedPaths: [], ReadonlyPaths: ['/x'] };
    fillHostConfigDefaults(q, '1');
    assert.deepEqual([q.MaskedPaths, q.ReadonlyPaths], [[], ['/x']]);
  });
  it('leave out the omitempty fields when empty, and keep them otherwise', () => {
    const shaped = shapeHostConfig({ StorageOpt: {}, Tmpfs: { '/t': '' }, Sysctls: {}, Runtime: 'runc', Mounts: [], Init: true });
    assert.equal('StorageOpt' in shaped || 'Sysctls' in shaped || 'Mounts' in shaped || 'Capabilities' in shaped, false);
    assert.deepEqual([shaped.Tmpfs, shaped.Runtime, shaped.Init], [{ '/t': '' }, 'runc', true]);
  });
  it('shape Mounts items as inspect shows them', () => {
    const shaped = shapeHostConfig({ Mounts: [{ Type: 'tmpfs', Source: '', Target: '/x', TmpfsOptions: { SizeBytes: 1048576, Mode: 1023 }, BindOptions: { NonRecursive: false } }] });
    assert.deepEqual(shaped.Mounts, [{ Type: 'tmpfs', Target: '/x', BindOptions: {}, TmpfsOptions: { SizeBytes: 1048576, Mode: 1023 } }]);
  });
});

describe('shapeConfig', () => {
  it("gives the reference's Config for a merged minimal one", () => {
    assert.deepEqual(shapeConfig({ Image: 'bb:cmd', Cmd: ['sh'], Labels: {}, User: '', WorkingDir: '' }), {
      Hostname: '', Domainname: '', User: '', AttachStdin: false, AttachStdout: false, AttachStderr: false, Tty: false, OpenStdin: false,
      StdinOnce: false, Env: null, Cmd: ['sh'], Image: 'bb:cmd', Volumes: null, WorkingDir: '', Entrypoint: null, OnBuild: null, Labels: {},
    });
  });
  it('keeps only the set Healthcheck fields', () => {
    assert.deepEqual(shapeConfig({ Healthcheck: { Test: ['NONE'], Interval: 0, Retries: 0 } }).Healthcheck, { Test: ['NONE'] });
    assert.deepEqual(shapeConfig({ Healthcheck: {} }).Healthcheck, {});
  });
});
