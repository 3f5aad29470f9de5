// What a daemon's containers leave on the host, to check that a failed or finished operation left
// nothing: records and root filesystems on disk, mounts under the test's directory, runc state,
// conmon processes started for it, and the keepers of its log pipes.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { Berthd } from './berthd.js';

export interface Leftovers {
  containers: string[];
  rootfs: string[];
  mounts: string[];
  runc: string[];
  conmons: number[];
  logKeepers: string[];
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Mount points at or under `dir`, from this process's mountinfo. */
export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m): m is string => m !== undefined && (m === dir || m.startsWith(`${dir}/`)))
    .sort();
}

/** Container IDs runc knows under the daemon's exec root. */
export function runcContainers(d: Berthd): string[] {
  const out = execFileSync('runc', ['--root', path.join(d.dir, 'exec', 'runc'), 'list', '--format', 'json'], { encoding: 'utf8' });
  return ((JSON.parse(out || 'null') as Array<{ id: string }> | null) ?? []).map((c) => c.id).sort();
}

/** Live (not zombie) conmon processes whose command line names the daemon's directory. */
export function conmonsOf(d: Berthd): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // a zombie conmon waits for pid 1 to reap it (slow on this machine): it holds nothing
      if (!stat.includes('(conmon)') || stat.charAt(stat.lastIndexOf(')') + 2) === 'Z') continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(d.dir)) pids.push(Number(pid));
    } catch {
      // gone
    }
  }
  return pids;
}

/** The log pipe keepers alive (`sleep infinity` holding a fifo, src/runtime/log-pipe.ts) whose fifo is under `dir`: their pids and fifos. */
function logKeepers(dir: string): Array<{ pid: number; fifo: string }> {
  const found: Array<{ pid: number; fifo: string }> = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== 'sleep\0infinity\0') continue;
      const fifo = readlinkSync(`/proc/${pid}/fd/0`);
      if (fifo.startsWith(`${dir}/`)) found.push({ pid: Number(pid), fifo });
    } catch {
      // gone
    }
  }
  return found;
}

/** The fifos of the log pipe keepers alive under `dir`. */
export function logKeepersUnder(dir: string): string[] {
  return logKeepers(dir)
    .map((k) => k.fifo)
    .sort();
}

/** Ends the log pipe keepers under `dir`: their command line does not name it, so a sweep by name misses them. */
export function killLogKeepersUnder(dir: string): void {
  for (const { pid } of logKeepers(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export function leftovers(d: Berthd): Leftovers {
  return {
    containers: entries(path.join(d.dataRoot, 'containers')),
    rootfs: entries(path.join(d.dataRoot, 'rootfs')),
    mounts: mountsUnder(d.dir),
    runc: runcContainers(d),
    conmons: conmonsOf(d),
    logKeepers: logKeepersUnder(d.dir),
  };
}

/** Whether a process of that pid exists (a zombie counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
