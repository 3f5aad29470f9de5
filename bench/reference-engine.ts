// Docker's engine to compare with, named by BENCH_REFERENCE_SOCKET. The reference-engine tool
// writes dockerd's pid into `pid` beside the socket.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ping } from './ping.js';
import { processName } from './process-memory.js';

export interface ReferenceEngine {
  socket: string;
  /** dockerd's pid, or null with the reason in pidProblem. */
  pid: number | null;
  pidProblem?: string;
}

export async function referenceFromEnv(env: NodeJS.ProcessEnv): Promise<ReferenceEngine | null> {
  const socket = env.BENCH_REFERENCE_SOCKET;
  if (!socket) return null;
  // Asked for a comparison: a dead socket is an error, not a quiet run without one.
  if (!(await ping(socket))) throw new Error(`BENCH_REFERENCE_SOCKET=${socket} does not answer GET /_ping`);
  return { socket, ...dockerdPid(path.join(path.dirname(socket), 'pid')) };
}

function dockerdPid(pidFile: string): { pid: number | null; pidProblem?: string } {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return { pid: null, pidProblem: `no pid file at ${pidFile}` };
  }
  const name = processName(pid);
  // A stale pid file may name a process that has nothing to do with the engine.
  if (name !== 'dockerd') return { pid: null, pidProblem: `${pidFile} names pid ${pid}, which is ${name ?? 'not running'}, not dockerd` };
  return { pid };
}
