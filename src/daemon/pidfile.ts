// The daemon's pidfile, refused when it names a process that is still alive (as dockerd's pidfile).
// One left by a crash never blocks a restart: a process that is gone, or a zombie (state Z: dead,
// not yet reaped by its parent), is no daemon.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writePidfile(file: string): () => void {
  const existing = readPid(file);
  if (existing !== undefined && existing !== process.pid && processIsAlive(existing)) {
    throw new Error(`pid file found, ensure berthd is not running or delete ${file} (it names process ${existing})`);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${process.pid}`);
  return () => {
    if (readPid(file) === process.pid) rmSync(file, { force: true });
  };
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return processState(pid) !== 'Z';
}

/** The state letter of /proc/<pid>/stat (after the command, which may hold spaces and parentheses). */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}
