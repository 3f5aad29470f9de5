// The daemon's pidfile, refused when it names a process that is still alive (as dockerd's pidfile).
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
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
