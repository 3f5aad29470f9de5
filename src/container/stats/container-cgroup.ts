// Where a running container's cgroup is, from the cgroupsPath runc was given (cgroupfs): on cgroup
// v1 (and hybrid hosts, where runc uses v1) one directory per controller, /sys/fs/cgroup/<controller>/<path>;
// on v2 one directory, /sys/fs/cgroup/<path>.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isUnifiedHierarchy } from '../../system/cgroup-facts.js';

const CGROUP_ROOT = '/sys/fs/cgroup';

export interface ContainerCgroup {
  version: '1' | '2';
  /** the directory of a v1 controller (cpu, cpuacct, memory, pids, blkio), or the v2 directory */
  dir(controller: string): string;
}

let unified: boolean | undefined;

export function containerCgroup(cgroupsPath: string, root = CGROUP_ROOT): ContainerCgroup {
  unified ??= isUnifiedHierarchy(root);
  if (unified) return { version: '2', dir: () => path.join(root, cgroupsPath) };
  return { version: '1', dir: (controller) => path.join(root, controller, cgroupsPath) };
}

/** Whether the cgroup's processes are frozen (runc pause): the freezer's state; undefined when the cgroup is gone. */
export function isFrozen(cg: ContainerCgroup): boolean | undefined {
  try {
    if (cg.version === '2') return readFileSync(path.join(cg.dir(''), 'cgroup.freeze'), 'utf8').trim() === '1';
    // FREEZING: on its way, as a pause that has begun
    return readFileSync(path.join(cg.dir('freezer'), 'freezer.state'), 'utf8').trim() !== 'THAWED';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The cgroupsPath in a bundle's config.json, or undefined when there is no bundle (not running). */
export function bundleCgroupsPath(bundleDir: string): string | undefined {
  try {
    const spec = JSON.parse(readFileSync(path.join(bundleDir, 'config.json'), 'utf8')) as { linux?: { cgroupsPath?: string } };
    return spec.linux?.cgroupsPath;
  } catch {
    return undefined;
  }
}

/** The pids of every process in the cgroup and below it (cgroup.procs, as runc ps reads it); undefined once the cgroup is gone. */
export function cgroupPids(cg: ContainerCgroup): number[] | undefined {
  const pids = new Set<number>();
  const walk = (dir: string) => {
    for (const line of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (line !== '') pids.add(Number(line));
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(path.join(dir, entry.name));
  };
  try {
    walk(cg.dir('memory'));
  } catch (err) {
    // the run ended while it was read
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return [...pids].sort((a, b) => a - b);
}
