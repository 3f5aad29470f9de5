import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CAPABILITIES } from '../../runtime/oci-spec.js';
import { containerSeccomp, defaultSeccompProfile, kernelAtLeast, ociSeccomp, parseSecurityOptions, type DockerSeccompProfile } from './seccomp.js';

const AMD64 = { arch: 'amd64', kernel: '6.1.0-18-amd64' };
const names = (p: ReturnType<typeof ociSeccomp>) => p?.syscalls.map((s) => s.names.join(',')) ?? [];

describe('seccomp', () => {
  it("converts Docker's default profile for the default capabilities as dockerd 20.10 does on amd64", () => {
    const p = ociSeccomp(defaultSeccompProfile(), DEFAULT_CAPABILITIES, AMD64);
    assert.ok(p);
    assert.equal(p.defaultAction, 'SCMP_ACT_ERRNO');
    assert.deepEqual(p.architectures, ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32']);
    // dockerd 20.10.24's spec has the same twelve entries (its second is ptrace alone)
    assert.equal(p.syscalls.length, 12);
    assert.equal(p.syscalls[0].names.length, 346);
    assert.deepEqual(names(p).slice(1), [
      'process_vm_readv,process_vm_writev,ptrace',
      'personality', 'personality', 'personality', 'personality', 'personality',
      'arch_prctl', 'modify_ldt', 'clone', 'clone3', 'chroot',
    ]);
    assert.deepEqual(p.syscalls[9], { names: ['clone'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: 2114060288, op: 'SCMP_CMP_MASKED_EQ' }] });
    assert.deepEqual(p.syscalls[10], { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 });
  });

  it('includes by capability and excludes what a capability allows otherwise', () => {
    const p = ociSeccomp(defaultSeccompProfile(), [...DEFAULT_CAPABILITIES, 'CAP_SYS_ADMIN', 'CAP_SYS_PTRACE'], AMD64);
    const list = names(p);
    assert.ok(list.some((n) => n.startsWith('bpf,clone,clone3,') && n.includes('unshare')));
    assert.ok(list.includes('kcmp,pidfd_getfd,process_madvise,process_vm_readv,process_vm_writev,ptrace'));
    // the masked clone and clone3's ENOSYS are for containers without CAP_SYS_ADMIN
    assert.ok(!list.includes('clone') && !list.includes('clone3'));
  });

  it('filters by architecture and kernel', () => {
    const p = ociSeccomp(defaultSeccompProfile(), DEFAULT_CAPABILITIES, { arch: 's390x', kernel: '4.4.0' });
    assert.deepEqual(p?.architectures, ['SCMP_ARCH_S390X', 'SCMP_ARCH_S390']);
    const list = names(p);
    assert.ok(!list.includes('process_vm_readv,process_vm_writev,ptrace'));
    assert.ok(list.includes('s390_pci_mmio_read,s390_pci_mmio_write,s390_runtime_instr'));
    assert.ok(!list.includes('arch_prctl'));
    // s390's own clone entry, with the flags in its second argument
    assert.equal(p?.syscalls.find((s) => s.names[0] === 'clone')?.args?.[0].index, 1);
  });

  it('compares kernel releases by major and minor', () => {
    assert.ok(kernelAtLeast('4.8.0', '4.8'));
    assert.ok(kernelAtLeast('5.0.0-1-amd64', '4.8'));
    assert.ok(!kernelAtLeast('4.7.10', '4.8'));
    assert.ok(kernelAtLeast('6.18.44-fc-v595', '4.8'));
  });

  it('takes a profile with name, architectures and no archMap', () => {
    const custom: DockerSeccompProfile = { defaultAction: 'SCMP_ACT_ALLOW', architectures: ['SCMP_ARCH_X86_64'], syscalls: [{ name: 'mkdir', action: 'SCMP_ACT_ERRNO', args: null }] };
    assert.deepEqual(ociSeccomp(custom, DEFAULT_CAPABILITIES, AMD64), {
      defaultAction: 'SCMP_ACT_ALLOW',
      architectures: ['SCMP_ARCH_X86_64'],
      syscalls: [{ names: ['mkdir'], action: 'SCMP_ACT_ERRNO' }],
    });
    assert.equal(ociSeccomp({}, DEFAULT_CAPABILITIES, AMD64), undefined);
  });

  it("refuses profiles dockerd refuses, in its words", () => {
    assert.throws(() => ociSeccomp({ defaultAction: 'SCMP_ACT_ALLOW', architectures: ['SCMP_ARCH_X86_64'], archMap: [{ architecture: 'SCMP_ARCH_X86_64', subArchitectures: null }] }, [], AMD64), {
      message: "'architectures' and 'archMap' were specified in the seccomp profile, use either 'architectures' or 'archMap'",
    });
    assert.throws(() => ociSeccomp({ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ name: 'a', names: ['b'], action: 'SCMP_ACT_ERRNO' }] }, [], AMD64), /'name' and 'names' were specified/);
    assert.throws(() => containerSeccomp({ seccompProfile: '{nope', capabilities: [] }), { kind: 'invalidParameter', message: /^Decoding seccomp profile failed: / });
  });

  it('has no seccomp when privileged or unconfined', () => {
    assert.equal(containerSeccomp({ privileged: true, capabilities: [] }), undefined);
    assert.equal(containerSeccomp({ seccompProfile: 'unconfined', capabilities: [] }), undefined);
    assert.equal(containerSeccomp({ capabilities: DEFAULT_CAPABILITIES, host: AMD64 })?.syscalls.length, 12);
  });

  it('parses SecurityOpt as dockerd does', () => {
    assert.deepEqual(parseSecurityOptions(['no-new-privileges', 'seccomp=unconfined', 'apparmor=foo', 'label=type:x', 'label:level:s0']), {
      noNewPrivileges: true,
      seccompProfile: 'unconfined',
      appArmorProfile: 'foo',
      labelOptions: ['type:x', 'level:s0'],
    });
    assert.equal(parseSecurityOptions(['no-new-privileges=false']).noNewPrivileges, false);
    assert.equal(parseSecurityOptions(['no-new-privileges:true']).noNewPrivileges, true);
    assert.equal(parseSecurityOptions(['seccomp={"defaultAction":"SCMP_ACT_ALLOW"}']).seccompProfile, '{"defaultAction":"SCMP_ACT_ALLOW"}');
    assert.throws(() => parseSecurityOptions(['nonsense']), { kind: 'invalidParameter', message: 'invalid --security-opt 1: "nonsense"' });
    assert.throws(() => parseSecurityOptions(['foo=bar']), { message: 'invalid --security-opt 2: "foo=bar"' });
    assert.throws(() => parseSecurityOptions(['no-new-privileges=maybe']), { message: 'invalid --security-opt 2: "no-new-privileges=maybe"' });
  });
});
