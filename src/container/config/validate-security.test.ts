import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HostConfig } from './types.js';
import { normalizeCapabilities, validateCapabilities, validateNamespaceModes, validateSecurityOpts, validateSysctls } from './validate-security.js';

const bad = (message: string) => ({ kind: 'invalidParameter', message });
const sys = (message: string) => ({ kind: 'system', message });

describe('capabilities', () => {
  it('normalizes any case, with or without CAP_, and ALL', () => {
    assert.deepEqual(normalizeCapabilities(['net_admin', 'CAP_SYS_TIME', 'Cap_Chown', 'all'], 'CapAdd'), ['CAP_NET_ADMIN', 'CAP_SYS_TIME', 'CAP_CHOWN', 'ALL']);
  });
  it('refuses unknown names, in dockerd words naming the field', () => {
    assert.throws(() => validateCapabilities({ CapAdd: ['bogus'] }, false), bad('invalid CapAdd: unknown capability: "CAP_BOGUS"'));
    assert.throws(() => validateCapabilities({ CapDrop: ['CAP_bogus'] }, false), bad('invalid CapDrop: unknown capability: "CAP_BOGUS"'));
    // dockerd 20.10 does not know the capabilities after CAP_AUDIT_READ
    assert.throws(() => validateCapabilities({ CapAdd: ['perfmon'] }, false), bad('invalid CapAdd: unknown capability: "CAP_PERFMON"'));
  });
  it('keeps CapAdd and CapDrop as given', () => {
    const hc: HostConfig = { CapAdd: ['net_admin'], CapDrop: ['chown'] };
    validateCapabilities(hc, false);
    assert.deepEqual([hc.CapAdd, hc.CapDrop], [['net_admin'], ['chown']]);
  });
  it('at 1.40, takes Capabilities as the exact set, exclusive with CapAdd and CapDrop', () => {
    const hc: HostConfig = { Capabilities: ['CAP_CHOWN'] };
    validateCapabilities(hc, true);
    assert.deepEqual(hc.Capabilities, ['CAP_CHOWN']);
    assert.throws(() => validateCapabilities({ Capabilities: ['CAP_CHOWN'], CapAdd: ['NET_ADMIN'] }, true), bad('conflicting options: Capabilities and CapAdd'));
    assert.throws(() => validateCapabilities({ Capabilities: ['CAP_CHOWN'], CapDrop: ['NET_RAW'] }, true), bad('conflicting options: Capabilities and CapDrop'));
    assert.throws(() => validateCapabilities({ Capabilities: ['chown'] }, true), bad('invalid Capabilities: unknown capability: "chown"'));
  });
  it('at 1.25 and 1.41, drops Capabilities', () => {
    const hc: HostConfig = { Capabilities: ['bogus'], CapAdd: ['NET_ADMIN'] };
    validateCapabilities(hc, false);
    assert.equal('Capabilities' in hc, false);
  });
});

describe('validateSecurityOpts', () => {
  it('accepts the options dockerd knows', () => {
    validateSecurityOpts(['no-new-privileges', 'disable', 'label=disable', 'label:disable', 'seccomp=unconfined', 'apparmor=unconfined', 'no-new-privileges=true']);
  });
  it('refuses others with the 500 dockerd gives', () => {
    assert.throws(() => validateSecurityOpts(['bogus']), sys('invalid --security-opt 1: "bogus"'));
    assert.throws(() => validateSecurityOpts(['foo=bar']), sys('invalid --security-opt 2: "foo=bar"'));
    assert.throws(() => validateSecurityOpts(['no-new-privileges=maybe']), sys('invalid --security-opt 2: "no-new-privileges=maybe"'));
  });
});

describe('validateNamespaceModes', () => {
  it('accepts the modes that exist', () => {
    for (const IpcMode of ['', 'none', 'private', 'host', 'shareable', 'container:abc']) validateNamespaceModes({ IpcMode }, true);
    for (const PidMode of ['', 'host', 'container:abc']) validateNamespaceModes({ PidMode }, true);
    for (const CgroupnsMode of ['', 'host', 'private'] as const) assert.deepEqual(validateNamespaceModes({ CgroupnsMode }, true), []);
  });
  it('refuses the others, naming the mode', () => {
    assert.throws(() => validateNamespaceModes({ IpcMode: 'bogus' }, true), bad('invalid IPC mode: bogus'));
    assert.throws(() => validateNamespaceModes({ IpcMode: 'container:' }, true), bad('invalid IPC mode: container:'));
    assert.throws(() => validateNamespaceModes({ PidMode: 'bogus' }, true), bad('invalid PID mode: bogus'));
    assert.throws(() => validateNamespaceModes({ UTSMode: 'bogus' }, true), bad('invalid UTS mode: bogus'));
    assert.throws(() => validateNamespaceModes({ CgroupnsMode: 'bogus' as 'host' }, true), bad('invalid cgroup namespace mode: bogus'));
  });
  it('warns when a private cgroup namespace is not possible', () => {
    assert.deepEqual(validateNamespaceModes({ CgroupnsMode: 'private' }, false), ['Your kernel does not support cgroup namespaces.  Cgroup namespace setting discarded.']);
  });
});

describe('validateSysctls', () => {
  it('accepts namespaced sysctls', () => {
    validateSysctls({ Sysctls: { 'net.ipv4.ip_forward': '1', 'kernel.shmmax': '1', 'fs.mqueue.msg_max': '1', 'kernel.domainname': 'x' } });
  });
  it("refuses the others in runc's words", () => {
    assert.throws(() => validateSysctls({ Sysctls: { 'kernel.foo': '1' } }), bad('sysctl "kernel.foo" is not in a separate kernel namespace'));
    assert.throws(() => validateSysctls({ Sysctls: { 'net.ipv4.ip_forward': '1' }, NetworkMode: 'host' }), bad('sysctl "net.ipv4.ip_forward" not allowed in host network namespace'));
    assert.throws(() => validateSysctls({ Sysctls: { 'kernel.sem': '1' }, IpcMode: 'host' }), bad('sysctl "kernel.sem" is not allowed in the hosts ipc namespace'));
    assert.throws(() => validateSysctls({ Sysctls: { 'kernel.hostname': 'x' } }), bad('sysctl "kernel.hostname" is not allowed as it conflicts with the OCI "hostname" field'));
    assert.throws(() => validateSysctls({ Sysctls: { 'kernel.domainname': 'x' }, UTSMode: 'host' }), bad('sysctl "kernel.domainname" is not in a separate kernel namespace'));
  });
});
