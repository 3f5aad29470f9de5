// A berthd with the busybox image, for container tests, and the sweep that leaves nothing behind:
// containers outlive their daemon (conmon keeps them), so a test's teardown removes them through
// the API, stops the daemon, then kills whatever still runs from the test's directories and
// unmounts what is mounted there, even when the test failed midway.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Berthd, type StartOptions } from './berthd.js';
import { loadBusybox } from './busybox-image.js';
import { killLogKeepersUnder } from './leftovers.js';

/** A berthd in a network namespace of its own (its bridges, veths and rules go with it), with busybox loaded. */
export async function startWithBusybox(opts: StartOptions = {}): Promise<Berthd> {
  const d = await Berthd.start({ netns: 'own', ...opts });
  await loadBusybox(d);
  return d;
}

/** Removes every container, stops the daemon, and sweeps what is left under its directory. */
export async function teardown(d: Berthd): Promise<void> {
  try {
    const r = await d.request('GET', '/containers/json?all=1');
    if (r.status === 200) {
      for (const c of JSON.parse(r.body) as Array<{ Id: string }>) await d.request('DELETE', `/containers/${c.Id}?force=1`, { timeoutMs: 30000 });
    }
  } catch {
    // the daemon is gone: the sweep does it
  }
  await d.stop();
  sweep(d.dir);
}

/** Kills conmons, containers and log pipe keepers started from `dir`, and unmounts everything mounted under it. */
export function sweep(dir: string): void {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(dir) && Number(pid) !== process.pid) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone
    }
  }
  killLogKeepersUnder(dir);
  const runcRoot = path.join(dir, 'exec', 'runc');
  try {
    const list = JSON.parse(execFileSync('runc', ['--root', runcRoot, 'list', '--format', 'json'], { encoding: 'utf8' }) || 'null') as Array<{ id: string }> | null;
    for (const c of list ?? []) execFileSync('runc', ['--root', runcRoot, 'delete', '--force', c.id], { stdio: 'ignore' });
  } catch {
    // no runc state
  }
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m) => m !== undefined && (m === dir || m.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) execFileSync('umount', ['-l', m], { stdio: 'ignore' });
}

export interface HealthJson {
  Status: string;
  FailingStreak: number;
  Log: Array<{ Start: string; End: string; ExitCode: number; Output: string }>;
}

/** The parts of inspect's ContainerJSON the tests read. */
export interface ContainerJson {
  Id: string;
  Name: string;
  Path: string;
  Args: string[];
  Image: string;
  Driver: string;
  LogPath: string;
  RestartCount: number;
  State: { Status: string; Running: boolean; Pid: number; ExitCode: number; StartedAt: string; FinishedAt: string; Error: string; OOMKilled: boolean; Health?: HealthJson };
  Config: { Hostname: string; WorkingDir: string; Env: string[]; Labels: Record<string, string>; User: string; Cmd: string[] | null; Entrypoint: string[] | null };
  HostConfig: Record<string, unknown> & { RestartPolicy: { Name: string; MaximumRetryCount: number } };
  Mounts: Array<Record<string, unknown>>;
  ExecIDs: string[] | null;
  NetworkSettings: {
    Ports: Record<string, Array<{ HostIp: string; HostPort: string }> | null>;
    Networks: Record<string, { IPAddress: string; Gateway: string; Aliases: string[] | null; Links: string[] | null; NetworkID: string; EndpointID: string }>;
  };
}

/** `docker inspect` of one container. */
export async function inspectContainer(d: Berthd, ref: string): Promise<ContainerJson> {
  const r = await d.docker(['inspect', ref]);
  if (r.code !== 0) throw new Error(`docker inspect ${ref}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as ContainerJson[])[0];
}
