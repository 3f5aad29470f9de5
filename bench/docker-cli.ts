// The docker CLI against an engine's socket, timed from spawn to exit; a failed command throws
// with its stderr. DOCKER_CONFIG points at an empty directory, so no context or plugin of the
// machine's user gets in the way; `env` adds variables of the command's own (DOCKER_BUILDKIT=0).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const DOCKER = '/usr/local/bin/docker';
const TIMEOUT_MS = 120_000;

export interface CliRun {
  ms: number;
  stdout: string;
}

export function docker(socket: string, configDir: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, DOCKER_HOST: `unix://${socket}`, DOCKER_CONFIG: configDir };
    delete env.DOCKER_CONTEXT;
    const startedMs = performance.now();
    const p = spawn(DOCKER, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), TIMEOUT_MS);
    p.on('error', reject);
    p.on('close', (code, signal) => {
      const ms = performance.now() - startedMs;
      clearTimeout(timer);
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`docker ${args.join(' ')} on ${socket} ended with ${code ?? signal}: ${stderr.trim()}`));
    });
  });
}
