// Devices for the spec, as moby's WithDevices makes them (v20.10 daemon/oci_linux.go, oci/devices_linux.go):
// HostConfig.Devices (a device node, or a directory meaning every device under it) are created in
// the container and allowed in its device cgroup; DeviceCgroupRules add allow rules; a privileged
// container gets every device of the host's /dev and one allow-all rule.
import { lstatSync, readdirSync, realpathSync, statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { invalidParameter } from '../../errors.js';
import type { OciDevice, OciDeviceCgroupRule } from '../../runtime/oci-spec.js';
import type { DeviceMapping } from '../config/types.js';

const RULE = /^([acb]) ([0-9]+|\*):([0-9]+|\*) ([rwm]{1,3})$/;

/** One of DeviceCgroupRules ("c 1:3 mr", "a *:* rwm"); `*` is -1, which runc reads as any. */
export function parseDeviceCgroupRule(rule: string): OciDeviceCgroupRule {
  const m = RULE.exec(rule);
  if (!m) throw invalidParameter(`invalid device cgroup rule format: '${rule}'`);
  const num = (s: string): number => (s === '*' ? -1 : Number(s));
  return { allow: true, type: m[1] as 'a' | 'b' | 'c', major: num(m[2]), minor: num(m[3]), access: m[4] };
}

export interface ContainerDevices {
  devices: OciDevice[];
  /** the rules after Docker's defaults (ociSpec adds those, or allow-all when privileged) */
  rules: OciDeviceCgroupRule[];
}

/** The devices and rules of HostConfig.Devices and DeviceCgroupRules; for a privileged container, all of the host's. */
export function containerDevices(input: { devices?: readonly DeviceMapping[] | null; deviceCgroupRules?: readonly string[] | null; privileged?: boolean }): ContainerDevices {
  const devices: OciDevice[] = [];
  const rules: OciDeviceCgroupRule[] = [];
  if (input.privileged) {
    devices.push(...hostDevices('/dev'));
    // custom permissions mean nothing with every device allowed; a device at its own path is already there
    for (const d of input.devices ?? []) {
      if (d.PathOnHost === d.PathInContainer) continue;
      devices.push(...devicesFromPath(d.PathOnHost, d.PathInContainer, 'rwm').devices);
    }
    return { devices, rules };
  }
  for (const d of input.devices ?? []) {
    const found = devicesFromPath(d.PathOnHost, d.PathInContainer, d.CgroupPermissions);
    devices.push(...found.devices);
    rules.push(...found.rules);
  }
  for (const rule of input.deviceCgroupRules ?? []) rules.push(parseDeviceCgroupRule(rule));
  return { devices, rules };
}

/** A device node (symbolic links followed), or every device node under a directory, mapped to pathInContainer. */
export function devicesFromPath(pathOnHost: string, pathInContainer: string, permissions: string): ContainerDevices {
  let resolved = pathOnHost;
  try {
    if (lstatSync(pathOnHost).isSymbolicLink()) resolved = realpathSync(pathOnHost);
  } catch {
    // a broken link fails below with the path as given
  }
  let reason: string;
  try {
    const st = lstatSync(resolved, { bigint: true });
    const device = deviceOf(st, pathInContainer);
    if (device) return { devices: [device], rules: [ruleOf(device, permissions)] };
    reason = 'not a device node';
  } catch (err) {
    reason = (err as Error).message;
  }
  const found: ContainerDevices = { devices: [], rules: [] };
  if (isDirectory(resolved)) {
    for (const file of walk(resolved)) {
      const device = deviceOf(lstatSync(file, { bigint: true }), pathInContainer + file.slice(resolved.length));
      if (!device) continue;
      found.devices.push(device);
      found.rules.push(ruleOf(device, permissions));
    }
  }
  if (found.devices.length > 0) return found;
  throw invalidParameter(`error gathering device information while adding custom device "${pathOnHost}": ${reason}`);
}

/** Every device under dir, as containerd's HostDevices lists them for a privileged container. */
export function hostDevices(dir: string): OciDevice[] {
  const out: OciDevice[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // other mounts (pts, shm, mqueue) and lxc/udev state
      if (['pts', 'shm', 'fd', 'mqueue', '.lxc', '.lxd-mounts', '.udev'].includes(entry.name)) continue;
      out.push(...hostDevices(file));
      continue;
    }
    if (entry.name === 'console') continue;
    let st: BigIntStats;
    try {
      st = lstatSync(file, { bigint: true });
    } catch {
      continue; // gone meanwhile
    }
    const device = deviceOf(st, file);
    if (device) out.push(device);
  }
  return out;
}

function deviceOf(st: BigIntStats, pathInContainer: string): OciDevice | undefined {
  const type = st.isCharacterDevice() ? 'c' : st.isBlockDevice() ? 'b' : undefined;
  const { major, minor } = deviceNumbers(st.rdev);
  // major 0 is the kernel's "unnamed" devices, never a node to pass on (runc's DeviceFromPath)
  if (!type || major === 0) return undefined;
  return { path: pathInContainer, type, major, minor, fileMode: Number(st.mode & 0o7777n), uid: Number(st.uid), gid: Number(st.gid) };
}

function ruleOf(device: OciDevice, access: string): OciDeviceCgroupRule {
  return { allow: true, type: device.type as 'b' | 'c', major: device.major, minor: device.minor, access };
}

/** glibc's major()/minor() of a dev_t. */
export function deviceNumbers(rdev: bigint): { major: number; minor: number } {
  return {
    major: Number(((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn)),
    minor: Number((rdev & 0xffn) | ((rdev >> 12n) & ~0xffn)),
  };
}

/** The major:minor of the device a path names (blkio limits), as moby stats it. */
export function deviceNumbersOf(p: string): { major: number; minor: number } {
  return deviceNumbers(statSync(p, { bigint: true }).rdev);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(file);
    else yield file;
  }
}
