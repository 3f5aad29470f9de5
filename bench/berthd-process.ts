// One berthd in a directory of its own (socket, data root, exec root, pid file and an empty
// daemon.json), run through `nsenter --net` in the network namespace it is given: its bridges,
// iptables rules and published ports stay there. Its socket is a file, reached from any namespace.
// A figure may add flags of its own (a swarm node's --cgroup-parent).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ping } from './ping.js';

// dist/bench/ → the repository's bin/
const BERTHD = fileURLToPath(new URL('../../bin/berthd', import.meta.url));
const STDERR_KEPT_BYTES = 8192;
const STOP_GRACE_MS = 5000;

export class BerthdProcess {
  readonly socket: string;
  readonly pidFile: string;
  readonly proc: ChildProcess;
  /** performance.now() just before the spawn. */
  readonly spawnedAtMs: number;
  private stderr = '';
  private readonly exited: Promise<void>;

  private constructor(
    readonly dir: string,
    /** the network namespace (a file) berthd runs in */
    readonly netns: string,
    extraArgs: readonly string[],
  ) {
    this.socket = path.join(dir, 'b.sock');
    this.pidFile = path.join(dir, 'pid');
    const configFile = path.join(dir, 'daemon.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(configFile, '{}');
    const args = [
      '-H', `unix://${this.socket}`,
      '--data-root', path.join(dir, 'root'),
      '--exec-root', path.join(dir, 'exec'),
      '--pidfile', this.pidFile,
      '--config-file', configFile,
      ...extraArgs,
    ];
    this.spawnedAtMs = performance.now();
    // bin/berthd is run as it is installed (a wrapper that sets node's flags), not through `node`;
    // nsenter execs it, so the child's pid is the wrapper's, then node's.
    this.proc = spawn('nsenter', [`--net=${netns}`, '--', BERTHD, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    // Keep the tail only: it is there to explain a failed start.
    this.proc.stderr?.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-STDERR_KEPT_BYTES)));
    this.exited = new Promise((resolve) => this.proc.once('exit', () => resolve()));
  }

  static spawn(dir: string, netns: string, extraArgs: readonly string[] = []): BerthdProcess {
    return new BerthdProcess(dir, netns, extraArgs);
  }

  /** The daemon's own pid, from its pid file: bin/berthd may be a wrapper around it. */
  get pid(): number {
    return Number(readFileSync(this.pidFile, 'utf8').trim());
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Polls /_ping every pollMs until berthd answers; returns the ms from spawn to that answer. */
  async waitServing(pollMs = 2, timeoutMs = 15000): Promise<number> {
    while (!(await ping(this.socket))) {
      if (!this.running) throw new Error(`berthd exited before serving:\n${this.stderr}`);
      if (performance.now() - this.spawnedAtMs > timeoutMs) throw new Error(`berthd did not answer within ${timeoutMs} ms:\n${this.stderr}`);
      await sleep(pollMs);
    }
    return performance.now() - this.spawnedAtMs;
  }

  /** Throws with the end of berthd's log if it has exited; explains requests that fail. */
  assertRunning(): void {
    if (!this.running) throw new Error(`berthd exited (${this.proc.exitCode ?? this.proc.signalCode}):\n${this.stderr}`);
  }

  /** SIGTERM, then SIGKILL if berthd has not stopped within the grace period. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** For process exit, where nothing asynchronous runs any more. */
  killNow(): void {
    if (this.running) this.proc.kill('SIGKILL');
  }
}
