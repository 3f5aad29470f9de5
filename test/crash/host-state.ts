// What a berthd left on the host, read from the places themselves: files under its roots, the
// mount table, runc's state, conmon processes, cgroups, and the links and iptables rules of its
// network namespace.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { mountsUnder } from '../helpers/leftovers.js';
import { execIn } from '../helpers/netns.js';

export function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

export { existsSync as exists, mountsUnder };

/** Container IDs runc has state for. */
export function runcIds(execRoot: string): string[] {
  const out = execFileSync('runc', ['--root', path.join(execRoot, 'runc'), 'list', '--format', 'json'], { encoding: 'utf8' });
  return ((JSON.parse(out || 'null') as Array<{ id: string }> | null) ?? []).map((c) => c.id).sort();
}

export interface ProcessInfo {
  pid: number;
  state: string;
  cmdline: string[];
}

function processInfo(pid: string): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { pid: Number(pid), state: stat.charAt(stat.lastIndexOf(')') + 2), cmdline };
  } catch {
    return undefined;
  }
}

/** Live (not zombie) processes whose command line names `dir`, but this one. */
export function processesNaming(dir: string): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .map(processInfo)
    .filter((p): p is ProcessInfo => p !== undefined && p.state !== 'Z' && p.cmdline.some((a) => a.includes(dir)));
}

/** conmons started for `dir`'s daemon: the container each watches, and whether it watches an exec. */
export function conmons(dir: string): Array<{ pid: number; containerId: string; exec: boolean }> {
  return processesNaming(dir)
    .filter((p) => path.basename(p.cmdline[0] ?? '') === 'conmon')
    .map((p) => ({ pid: p.pid, containerId: p.cmdline[p.cmdline.indexOf('-c') + 1] ?? '', exec: p.cmdline.includes('--exec') }));
}

/** A process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  const p = processInfo(String(pid));
  return p !== undefined && p.state !== 'Z';
}

const CGROUP_ROOT = '/sys/fs/cgroup';

/** The directories of a container's cgroup (berth's default parent, /berth), on v1 per controller. */
export function cgroupDirs(id: string): string[] {
  if (existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'))) return [path.join(CGROUP_ROOT, 'berth', id)];
  return ['memory', 'pids', 'cpu', 'blkio'].map((c) => path.join(CGROUP_ROOT, c, 'berth', id));
}

interface IpLink {
  ifname: string;
  master?: string;
  linkinfo?: { info_kind?: string };
}

/** The namespace's links with their kind (bridge, veth, ...). */
export function linksIn(netns: string): Array<{ name: string; kind: string; master?: string }> {
  return (JSON.parse(execIn(netns, 'ip', ['-j', '-d', 'link', 'show'])) as IpLink[]).map((l) => ({ name: l.ifname.replace(/@.*$/, ''), kind: l.linkinfo?.info_kind ?? '', master: l.master }));
}

/** iptables-save of the namespace, both tables berth uses. */
export function iptablesIn(netns: string): string[] {
  return ['filter', 'nat'].flatMap((table) => execIn(netns, 'iptables-save', ['-t', table]).split('\n')).filter((l) => l !== '' && !l.startsWith('#'));
}

/** Files and folders under `root` whose names mark them temporary, skipping content folders (layers, root filesystems, volumes). */
export function tempFilesUnder(root: string): string[] {
  const found: string[] = [];
  const skip = new Set(['diff', 'upper', 'merged', 'work', 'init', '_data']);
  const walk = (dir: string, depth: number) => {
    for (const e of (() => {
      try {
        return readdirSync(dir, { withFileTypes: true });
      } catch {
        return [];
      }
    })()) {
      const p = path.join(dir, e.name);
      if (/\.tmp($|-)|^tmp-|\.partial$/.test(e.name)) found.push(p);
      if (e.isDirectory() && !skip.has(e.name) && depth < 6) walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return found.sort();
}

/** Bytes used under `dir` (du), 0 when it is gone. */
export function diskBytes(dir: string): number {
  try {
    return Number(execFileSync('du', ['-sb', '-x', dir], { encoding: 'utf8' }).split('\t')[0]);
  } catch {
    return 0;
  }
}
