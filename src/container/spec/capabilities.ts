// The container's capability set, as moby's caps.TweakCapabilities computes it (v20.10 oci/caps):
// Docker's defaults, less CapDrop, plus CapAdd ("ALL", any case, with or without CAP_); the
// complete list of HostConfig.Capabilities (API 1.40) instead; every capability for a privileged
// container. "Every" means every one the daemon itself holds: runc cannot grant a capability it
// lacks, and root here has no CAP_SYS_RESOURCE, so the kernel's full list would fail at start.
import { readFileSync } from 'node:fs';
import { invalidParameter } from '../../errors.js';
import { ALL_CAPABILITIES } from '../../runtime/capabilities.js';
import { DEFAULT_CAPABILITIES } from '../../runtime/oci-spec.js';

/** The kernel's capabilities by number (linux/capability.h, up to CAP_CHECKPOINT_RESTORE = 40). */
export const KNOWN_CAPABILITIES = ALL_CAPABILITIES;

/** The capability names set in a /proc/<pid>/status mask (hex), in the kernel's order. */
export function capabilitiesFromMask(hex: string): string[] {
  const mask = BigInt(`0x${hex}`);
  return KNOWN_CAPABILITIES.filter((_, bit) => (mask >> BigInt(bit)) & 1n);
}

let daemonCapabilities: string[] | undefined;

/** The capabilities this process holds (both bounding and effective): what runc, its child, can pass on. */
export function heldCapabilities(): string[] {
  if (daemonCapabilities) return daemonCapabilities;
  const status = readFileSync('/proc/self/status', 'utf8');
  const mask = (field: string): string => {
    const m = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, 'm').exec(status);
    if (!m) throw new Error(`/proc/self/status has no ${field}`);
    return m[1];
  };
  const effective = new Set(capabilitiesFromMask(mask('CapEff')));
  daemonCapabilities = capabilitiesFromMask(mask('CapBnd')).filter((c) => effective.has(c));
  return daemonCapabilities;
}

export interface CapabilityInput {
  capAdd?: readonly string[] | null;
  capDrop?: readonly string[] | null;
  /** HostConfig.Capabilities (API 1.40): the whole set, replacing the defaults, CapAdd and CapDrop */
  capabilities?: readonly string[] | null;
  privileged?: boolean;
  /** what "all" means: the daemon's own capabilities by default */
  all?: readonly string[];
}

/** The container's bounding (= effective = permitted) set. */
export function containerCapabilities(input: CapabilityInput): string[] {
  const all = [...(input.all ?? heldCapabilities())];
  if (input.privileged) return all;
  if (input.capabilities) return input.capabilities.map((c) => validCapability(c));
  const adds = normalizeCapabilities(input.capAdd ?? []);
  const drops = normalizeCapabilities(input.capDrop ?? []);
  if (adds.length === 0 && drops.length === 0) return [...DEFAULT_CAPABILITIES];
  if (adds.includes('ALL')) return all.filter((c) => !drops.includes(c));
  // "dropping" all: what CapAdd names is the whole set
  if (drops.includes('ALL')) return adds;
  return [...DEFAULT_CAPABILITIES.filter((c) => !drops.includes(c)), ...adds.filter((c) => !DEFAULT_CAPABILITIES.includes(c) || drops.includes(c))];
}

/** CapAdd/CapDrop entries as moby's NormalizeLegacyCapabilities spells them: upper case, CAP_ prefixed, ALL kept. */
export function normalizeCapabilities(caps: readonly string[]): string[] {
  return caps.map((raw) => {
    const c = raw.toUpperCase();
    if (c === 'ALL') return c;
    return validCapability(c.startsWith('CAP_') ? c : `CAP_${c}`);
  });
}

function validCapability(c: string): string {
  if (!KNOWN_CAPABILITIES.includes(c)) throw invalidParameter(`unknown capability: "${c}"`);
  return c;
}
