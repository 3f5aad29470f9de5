// Resident memory of an engine: its daemon plus the processes it started (dockerd runs containerd
// as its child; counting only dockerd would flatter it).
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessRss {
  pid: number;
  name: string;
  rssMiB: number;
}

export interface ProcessMemory {
  rssMiB: number;
  processes: ProcessRss[];
}

export function processMemory(pid: number): ProcessMemory {
  // a child may end between the listing and the read
  const processes = [pid, ...childPids(pid)].map(processRss).filter((p): p is ProcessRss => p !== null);
  if (processes[0]?.pid !== pid) throw new Error(`process ${pid} is gone`);
  return total(processes);
}

/** The resident memory of the given processes together; throws if one of them is gone. */
export function processesMemory(pids: readonly number[]): ProcessMemory {
  const processes = pids.map((pid) => {
    const rss = processRss(pid);
    if (rss === null) throw new Error(`process ${pid} is gone`);
    return rss;
  });
  return total(processes);
}

/** Two measurements as one. */
export function combineMemory(a: ProcessMemory, b: ProcessMemory): ProcessMemory {
  return total([...a.processes, ...b.processes]);
}

function total(processes: ProcessRss[]): ProcessMemory {
  return { rssMiB: processes.reduce((sum, p) => sum + p.rssMiB, 0), processes };
}

/** The parent of a process (a container's first process: its conmon, or containerd's shim). */
export function parentPid(pid: number): number {
  return statPpid(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** The process's name, or null when there is no such process. */
export function processName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

function processRss(pid: number): ProcessRss | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null; // ended between the listing and the read
  }
  const name = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?';
  // Kernel threads and zombies have no VmRSS line.
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return { pid, name, rssMiB: rssKiB / 1024 };
}

function childPids(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (statPpid(stat) === parent) children.push(Number(entry));
  }
  return children;
}

function statPpid(stat: string): number {
  // The name in parentheses may hold spaces and parentheses; the parent pid is the second field after it.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
