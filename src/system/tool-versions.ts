// The versions of the programs berth runs containers with, as `runc --version` and `conmon --version` print them.
import { execFile } from 'node:child_process';

export interface ToolVersion {
  name: string;
  version: string;
  commit: string;
}

const TOOLS = ['runc', 'conmon'];

/** Installed tools only; a tool that is missing or fails to answer is left out. */
export async function readToolVersions(): Promise<ToolVersion[]> {
  const found = await Promise.all(TOOLS.map((name) => readToolVersion(name)));
  return found.filter((t): t is ToolVersion => t !== undefined);
}

function readToolVersion(name: string): Promise<ToolVersion | undefined> {
  return new Promise((resolve) => {
    execFile(name, ['--version'], { timeout: 5000 }, (err, stdout) => {
      if (err) return resolve(undefined);
      const version = /version\s+(\S+)/.exec(stdout)?.[1];
      const commit = /^commit:\s*(\S+)/m.exec(stdout)?.[1] ?? '';
      resolve(version ? { name, version, commit } : undefined);
    });
  });
}
