// Facts of the machine berth runs on, for /info and /version.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { goArch } from '../lib/go-arch.js';

export interface HostFacts {
  hostname: string;
  kernelVersion: string;
  operatingSystem: string;
  osVersion: string;
  architecture: string;
  goArch: string;
  cpus: number;
  memTotalBytes: number;
}

export function readHostFacts(): HostFacts {
  const release = readOsRelease();
  return {
    hostname: os.hostname(),
    kernelVersion: os.release(),
    operatingSystem: release.PRETTY_NAME ?? 'Linux',
    osVersion: release.VERSION_ID ?? '',
    architecture: os.machine(),
    goArch: goArch(),
    cpus: os.availableParallelism(),
    memTotalBytes: os.totalmem(),
  };
}

/** Reads a /proc/sys switch such as net/ipv4/ip_forward; a missing file means off. */
export function readSysctlFlag(path: string): boolean {
  try {
    return readFileSync(`/proc/sys/${path}`, 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** Whether the kernel can filter system calls, so the default seccomp profile can be applied. */
export function kernelHasSeccomp(): boolean {
  try {
    return /^Seccomp:/m.test(readFileSync('/proc/self/status', 'utf8'));
  } catch {
    return false;
  }
}

/** The number of open file descriptors of this process. */
export function openFileDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

function readOsRelease(): Record<string, string> {
  const out: Record<string, string> = {};
  let text = '';
  try {
    text = readFileSync('/etc/os-release', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line);
    if (m) out[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  }
  return out;
}

