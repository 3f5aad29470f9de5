// Capabilities, security options, namespace modes and sysctls, checked at create. dockerd 20.10
// checks capabilities and security options here; namespace modes it checks only at start (later
// dockerd versions check them at create, with the words used below), and sysctls it leaves to runc,
// whose words are used below so that the failure comes at create instead of at start.
import { EngineError, invalidParameter } from '../../errors.js';
import { ALL_CAPABILITIES } from '../../runtime/capabilities.js';
import type { HostConfig } from './types.js';

/** The capabilities dockerd 20.10 knows: the kernel's up to CAP_AUDIT_READ (CAP_PERFMON and later are refused as unknown, asked). */
export const KNOWN_CAPABILITIES = ALL_CAPABILITIES.slice(0, ALL_CAPABILITIES.indexOf('CAP_AUDIT_READ') + 1);
const known = new Set<string>(KNOWN_CAPABILITIES);

/**
 * CapAdd/CapDrop names as the runtime wants them: any case, with or without CAP_, or ALL.
 * dockerd stores the names as given and normalizes them when it builds the spec.
 */
export function normalizeCapabilities(names: string[] | null | undefined, field: 'CapAdd' | 'CapDrop'): string[] {
  return (names ?? []).map((n) => {
    const c = n.toUpperCase();
    if (c === 'ALL') return c;
    const full = c.startsWith('CAP_') ? c : `CAP_${c}`;
    if (!known.has(full)) throw invalidParameter(`invalid ${field}: unknown capability: "${full}"`);
    return full;
  });
}

/**
 * Checks CapAdd, CapDrop and, where the API version has it, Capabilities (API 1.40: the exact set,
 * in the OCI spelling, exclusive with CapAdd/CapDrop). Elsewhere Capabilities is dropped, as
 * dockerd 20.10 does at every version (asked).
 */
export function validateCapabilities(hc: HostConfig, capabilitiesField: boolean): void {
  normalizeCapabilities(hc.CapAdd, 'CapAdd');
  normalizeCapabilities(hc.CapDrop, 'CapDrop');
  if (!capabilitiesField || hc.Capabilities == null) {
    delete hc.Capabilities;
    return;
  }
  if (hc.CapAdd?.length) throw invalidParameter('conflicting options: Capabilities and CapAdd');
  if (hc.CapDrop?.length) throw invalidParameter('conflicting options: Capabilities and CapDrop');
  for (const c of hc.Capabilities) {
    if (!known.has(c)) throw invalidParameter(`invalid Capabilities: unknown capability: "${c}"`);
  }
}

/** SecurityOpt entries as dockerd's parseSecurityOpt reads them; its errors are 500s (asked). */
export function validateSecurityOpts(opts: string[] | null | undefined): void {
  for (const opt of opts ?? []) {
    if (opt === 'no-new-privileges' || opt === 'disable') continue;
    const sep = opt.includes('=') ? '=' : opt.includes(':') ? ':' : '';
    if (!sep) throw new EngineError('system', `invalid --security-opt 1: ${JSON.stringify(opt)}`);
    const key = opt.slice(0, opt.indexOf(sep));
    const value = opt.slice(opt.indexOf(sep) + 1);
    const ok = ['label', 'apparmor', 'seccomp'].includes(key) || (key === 'no-new-privileges' && goBools.has(value));
    if (!ok) throw new EngineError('system', `invalid --security-opt 2: ${JSON.stringify(opt)}`);
  }
}

const goBools = new Set(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False']);

/** IpcMode, PidMode, UTSMode and CgroupnsMode; returns the warning for an unsupported cgroupns. */
export function validateNamespaceModes(hc: HostConfig, cgroupNamespaces: boolean): string[] {
  const ipc = hc.IpcMode ?? '';
  if (!['', 'none', 'private', 'host', 'shareable'].includes(ipc) && !isContainerRef(ipc)) {
    throw invalidParameter(`invalid IPC mode: ${ipc}`);
  }
  const pid = hc.PidMode ?? '';
  if (!['', 'host'].includes(pid) && !isContainerRef(pid)) throw invalidParameter(`invalid PID mode: ${pid}`);
  const uts = hc.UTSMode ?? '';
  if (!['', 'host'].includes(uts)) throw invalidParameter(`invalid UTS mode: ${uts}`);
  const cgroupns = hc.CgroupnsMode ?? '';
  if (!['', 'private', 'host'].includes(cgroupns)) throw invalidParameter(`invalid cgroup namespace mode: ${cgroupns}`);
  if (cgroupns === 'private' && !cgroupNamespaces) {
    return ['Your kernel does not support cgroup namespaces.  Cgroup namespace setting discarded.'];
  }
  return [];
}

function isContainerRef(mode: string): boolean {
  const parts = mode.split(':');
  return parts.length === 2 && parts[0] === 'container' && parts[1] !== '';
}

const ipcSysctls = new Set(['kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.sem', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.shm_rmid_forced']);

/** Sysctls must be in a namespace the container has of its own (runc's rules and words). */
export function validateSysctls(hc: HostConfig): void {
  for (const name of Object.keys(hc.Sysctls ?? {})) {
    if (ipcSysctls.has(name) || name.startsWith('fs.mqueue.')) {
      if (hc.IpcMode === 'host') throw invalidParameter(`sysctl ${JSON.stringify(name)} is not allowed in the hosts ipc namespace`);
      continue;
    }
    if (name.startsWith('net.')) {
      if (hc.NetworkMode === 'host') throw invalidParameter(`sysctl ${JSON.stringify(name)} not allowed in host network namespace`);
      continue;
    }
    if (hc.UTSMode !== 'host' && name === 'kernel.domainname') continue;
    if (hc.UTSMode !== 'host' && name === 'kernel.hostname') {
      throw invalidParameter('sysctl "kernel.hostname" is not allowed as it conflicts with the OCI "hostname" field');
    }
    throw invalidParameter(`sysctl ${JSON.stringify(name)} is not in a separate kernel namespace`);
  }
}
