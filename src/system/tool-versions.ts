// The versions of the programs berth runs containers with, as `runc --version`, `conmon --version`
// and the init's (tini's words: "tini version 0.19.0 - git.de40ad0") print them.
import { runCommand } from '../runtime/child-process.js';
import { INIT_BINARY } from '../runtime/tool-path.js';

export interface ToolVersion {
  name: string;
  version: string;
  commit: string;
}

/** The command, and the component name /version gives it (dockerd's for the init). */
const TOOLS = [
  { command: 'runc', name: 'runc' },
  { command: 'conmon', name: 'conmon' },
  { command: INIT_BINARY, name: 'docker-init' },
];
const VERSION_TIMEOUT_MS = 5000;

/** Installed tools only; a tool that is missing or fails to answer is left out. */
export async function readToolVersions(): Promise<ToolVersion[]> {
  const found = await Promise.all(TOOLS.map((tool) => readToolVersion(tool.command, tool.name)));
  return found.filter((t): t is ToolVersion => t !== undefined);
}

async function readToolVersion(command: string, name: string): Promise<ToolVersion | undefined> {
  // a tool that cannot say finds no version in ''
  const stdout = await runCommand(command, ['--version'], { timeoutMs: VERSION_TIMEOUT_MS }).then((r) => r.stdout.toString(), () => '');
  const version = /version\s+(\S+)/.exec(stdout)?.[1];
  const commit = /^commit:\s*(\S+)/m.exec(stdout)?.[1] ?? / - git\.(\w+)/.exec(stdout)?.[1] ?? '';
  return version ? { name, version, commit } : undefined;
}
