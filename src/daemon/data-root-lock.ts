// One berthd per data root. The lock is an abstract unix socket named after the data root's
// device and inode: the kernel frees it when the process dies, even by kill -9, so a crash never
// leaves a stale lock behind, and no native module is needed.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export class DataRootInUseError extends Error {
  constructor(dataRoot: string, holderPid: string | undefined) {
    const who = holderPid ? `another berthd (pid ${holderPid})` : 'another berthd';
    super(`the data root ${dataRoot} is in use by ${who}: stop it first, or give this one another --data-root`);
    this.name = 'DataRootInUseError';
  }
}

export interface DataRootLock {
  release(): Promise<void>;
}

export async function lockDataRoot(dataRoot: string): Promise<DataRootLock> {
  mkdirSync(dataRoot, { recursive: true, mode: 0o711 });
  const st = statSync(dataRoot);
  const name = createHash('sha256').update(`${st.dev}:${st.ino}`).digest('hex').slice(0, 40);
  const server = net.createServer((socket) => socket.destroy());
  const holderFile = path.join(dataRoot, 'berthd.lock');
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new DataRootInUseError(dataRoot, readHolder(holderFile)));
      else reject(err);
    });
    server.listen({ path: `\0berth-data-root-${name}` }, resolve);
  });
  server.unref();
  writeFileSync(holderFile, `${process.pid}\n`);
  return {
    release: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readHolder(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
