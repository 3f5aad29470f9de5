// Seccomp for the spec, and the SecurityOpt entries that choose it, as moby does (v20.10
// profiles/seccomp/seccomp_linux.go setupSeccomp, daemon/seccomp_linux.go WithSeccomp,
// daemon/daemon_unix.go parseSecurityOpt).
//
// seccomp-default.json is moby's profiles/seccomp/default.json, unmodified, from moby/moby commit
// 0ec744f43b52dd0b3065b84e685b89a2ede1dd8e (the 23.0 line). Docker 20.10 builds the same profile in
// Go; its syscall lists match this file's except that this one also allows process_vm_readv and
// process_vm_writev on kernels from 4.8 (20.10: ptrace only) and names defaultErrnoRet 1 (EPERM,
// which is what SCMP_ACT_ERRNO returns without it).
import { release } from 'node:os';
import { invalidParameter } from '../../errors.js';
import { goArch } from '../../lib/go-arch.js';
import { parseGoBool } from '../../lib/go-bool.js';
import defaultProfile from './seccomp-default.json' with { type: 'json' };

/** A profile as Docker's JSON spells it (types.Seccomp). */
export interface DockerSeccompProfile {
  defaultAction?: string;
  defaultErrnoRet?: number;
  architectures?: string[] | null;
  archMap?: Array<{ architecture: string; subArchitectures: string[] | null }> | null;
  syscalls?: DockerSyscall[] | null;
}

interface SeccompFilter {
  caps?: string[];
  arches?: string[];
  minKernel?: string;
}

interface DockerSyscall {
  name?: string;
  names?: string[];
  action: string;
  errnoRet?: number;
  args?: OciSeccompArg[] | null;
  comment?: string;
  includes?: SeccompFilter;
  excludes?: SeccompFilter;
}

interface OciSeccompArg {
  index: number;
  value: number;
  valueTwo?: number;
  op: string;
}

/** linux.seccomp as runc reads it. */
export interface OciSeccomp {
  defaultAction: string;
  defaultErrnoRet?: number;
  architectures?: string[];
  syscalls: Array<{ names: string[]; action: string; errnoRet?: number; args?: OciSeccompArg[] }>;
}

/** libseccomp's name of each Go architecture (moby's nativeToSeccomp). */
const SECCOMP_ARCH: Record<string, string> = {
  '386': 'SCMP_ARCH_X86',
  amd64: 'SCMP_ARCH_X86_64',
  arm: 'SCMP_ARCH_ARM',
  arm64: 'SCMP_ARCH_AARCH64',
  mips64: 'SCMP_ARCH_MIPS64',
  mips64n32: 'SCMP_ARCH_MIPS64N32',
  mipsel64: 'SCMP_ARCH_MIPSEL64',
  mipsel64n32: 'SCMP_ARCH_MIPSEL64N32',
  ppc64le: 'SCMP_ARCH_PPC64LE',
  riscv64: 'SCMP_ARCH_RISCV64',
  s390x: 'SCMP_ARCH_S390X',
};

/** Docker's default profile. */
export function defaultSeccompProfile(): DockerSeccompProfile {
  return defaultProfile as DockerSeccompProfile;
}

export interface SeccompHost {
  /** Go's name of the architecture (amd64); this machine's by default */
  arch?: string;
  /** the kernel's release (6.1.0-...); this machine's by default */
  kernel?: string;
}

/**
 * A Docker profile for a container with these (bounding) capabilities, in the spec's shape: entries
 * kept or dropped by their includes/excludes (capabilities, architectures, minimum kernel), and
 * the architecture map narrowed to this machine's. Undefined when the profile is empty (no seccomp).
 */
export function ociSeccomp(profile: DockerSeccompProfile, capabilities: readonly string[], host: SeccompHost = {}): OciSeccomp | undefined {
  const syscalls = profile.syscalls ?? [];
  if (!profile.defaultAction && syscalls.length === 0) return undefined;
  const arch = host.arch ?? goArch();
  const kernel = host.kernel ?? release();
  if (profile.architectures?.length && profile.archMap?.length) {
    throw invalidParameter("'architectures' and 'archMap' were specified in the seccomp profile, use either 'architectures' or 'archMap'");
  }
  const out: OciSeccomp = { defaultAction: profile.defaultAction ?? '', syscalls: [] };
  if (profile.defaultErrnoRet !== undefined) out.defaultErrnoRet = profile.defaultErrnoRet;
  if (profile.architectures?.length) out.architectures = [...profile.architectures];
  const native = SECCOMP_ARCH[arch];
  const mapped = profile.archMap?.find((a) => a.architecture === native);
  if (mapped) out.architectures = [mapped.architecture, ...(mapped.subArchitectures ?? [])];

  const has = (cap: string) => capabilities.includes(cap);
  for (const call of syscalls) {
    const ex = call.excludes ?? {};
    if (ex.arches?.includes(arch)) continue;
    if (ex.caps?.some(has)) continue;
    if (ex.minKernel && kernelAtLeast(kernel, ex.minKernel)) continue;
    const inc = call.includes ?? {};
    if (inc.arches?.length && !inc.arches.includes(arch)) continue;
    if (inc.caps?.length && !inc.caps.every(has)) continue;
    if (inc.minKernel && !kernelAtLeast(kernel, inc.minKernel)) continue;
    if (call.name && call.names?.length) {
      throw invalidParameter("'name' and 'names' were specified in the seccomp profile, use either 'name' or 'names'");
    }
    const entry: OciSeccomp['syscalls'][number] = { names: call.name ? [call.name] : [...(call.names ?? [])], action: call.action };
    if (call.errnoRet !== undefined) entry.errnoRet = call.errnoRet;
    if (call.args?.length) entry.args = call.args.map((a) => ({ ...a }));
    out.syscalls.push(entry);
  }
  return out;
}

/** Whether the kernel release (5.10.0-21-amd64) is at least `min` (4.8): major, then minor. */
export function kernelAtLeast(release: string, min: string): boolean {
  const [major = 0, minor = 0] = release.split(/[.-]/).map((n) => Number.parseInt(n, 10) || 0);
  const [wantMajor = 0, wantMinor = 0] = min.split('.').map((n) => Number.parseInt(n, 10) || 0);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

/** What SecurityOpt asks for. */
export interface SecurityOptions {
  noNewPrivileges: boolean;
  /** 'unconfined', a profile's JSON (the CLI sends the file's content), or undefined for Docker's default */
  seccompProfile?: string;
  /** recorded only: this machine has no AppArmor, and dockerd then applies none */
  appArmorProfile?: string;
  /** SELinux label options; accepted and unused, as dockerd does without SELinux */
  labelOptions: string[];
}

/** SecurityOpt parsed as dockerd's parseSecurityOpt does, with its messages. */
export function parseSecurityOptions(opts: readonly string[] | null | undefined): SecurityOptions {
  const out: SecurityOptions = { noNewPrivileges: false, labelOptions: [] };
  for (const opt of opts ?? []) {
    if (opt === 'no-new-privileges') {
      out.noNewPrivileges = true;
      continue;
    }
    if (opt === 'disable') {
      out.labelOptions.push('disable');
      continue;
    }
    // `:` is the separator of old clients, still accepted
    const sep = opt.includes('=') ? '=' : opt.includes(':') ? ':' : undefined;
    const at = sep ? opt.indexOf(sep) : -1;
    if (at < 0) throw invalidParameter(`invalid --security-opt 1: "${opt}"`);
    const key = opt.slice(0, at);
    const value = opt.slice(at + 1);
    switch (key) {
      case 'label':
        out.labelOptions.push(value);
        break;
      case 'apparmor':
        out.appArmorProfile = value;
        break;
      case 'seccomp':
        out.seccompProfile = value;
        break;
      case 'no-new-privileges': {
        const b = parseGoBool(value);
        if (b === undefined) throw invalidParameter(`invalid --security-opt 2: "${opt}"`);
        out.noNewPrivileges = b;
        break;
      }
      default:
        throw invalidParameter(`invalid --security-opt 2: "${opt}"`);
    }
  }
  return out;
}

/** linux.seccomp for the container: none when privileged or unconfined, else its profile or Docker's. */
export function containerSeccomp(input: { privileged?: boolean; seccompProfile?: string; capabilities: readonly string[]; host?: SeccompHost }): OciSeccomp | undefined {
  if (input.privileged || input.seccompProfile === 'unconfined') return undefined;
  let profile = defaultSeccompProfile();
  if (input.seccompProfile !== undefined && input.seccompProfile !== '') {
    try {
      profile = JSON.parse(input.seccompProfile) as DockerSeccompProfile;
    } catch (err) {
      throw invalidParameter(`Decoding seccomp profile failed: ${(err as Error).message}`);
    }
  }
  return ociSeccomp(profile, input.capabilities, input.host);
}
