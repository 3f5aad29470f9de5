// The versions of the programs berth runs containers with, as `runc --version` and `conmon --version` print them.
import { runCommand } from '../runtime/child-process.js';

export interface ToolVersion {
  name: string;
  version: string;
  commit: string;
}

const TOOLS = ['runc', 'conmon'];
const VERSION_TIMEOUT_MS = 5000;

/** Installed tools only; a tool that is missing or fails to answer is left out. */
export async function readToolVersions(): Promise<ToolVersion[]> {
  const found = await Promise.all(TOOLS.map((name) => readToolVersion(name)));
  return found.filter((t): t is ToolVersion => t !== undefined);
}

async function readToolVersion(name: string): Promise<ToolVersion | undefined> {
  // a tool that cannot say finds no version in ''
  const stdout = await runCommand(name, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS }).then((r) => r.stdout.toString(), () => '');
  const version = /version\s+(\S+)/.exec(stdout)?.[1];
  const commit = /^commit:\s*(\S+)/m.exec(stdout)?.[1] ?? '';
  return version ? { name, version, commit } : undefined;
}
