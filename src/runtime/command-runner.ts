// The daemon's command runner: a small Node process, forked once at start while berthd is still
// small, that runs the commands berthd runs to their end (mount, runc start and delete, the CNI
// plugins, iptables...) and sends back how each ended. A spawn blocks its event loop while the
// kernel copies the parent's page tables and the child searches PATH and execs: in berthd, with a
// heap of a hundred MiB and more, that took milliseconds per command, a dozen commands per
// `docker run`, and was the largest part of the event loop's delay under load. In the runner it
// costs a fraction of that, and off berthd's loop.
//
// When the runner goes (killed, crashed), the commands it was running end as not started, and the
// next command forks a new one. When berthd goes, the runner goes at once (command-runner-main.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CommandExecutor, CommandOutcome, CommandRequest } from './child-process.js';

export type RunnerMessage = { id: number; request: CommandRequest } | { id: number; abort: true };
export interface RunnerReply {
  id: number;
  outcome: CommandOutcome;
}

/** the runner's module: beside this one as compiled, or in runtime/ beside the daemon's bundle (dist/src/berthd.mjs) */
const MAIN = ['./command-runner-main.js', './runtime/command-runner-main.js'].map((p) => fileURLToPath(new URL(p, import.meta.url))).find((p) => existsSync(p));
/** small young generation: the runner keeps little, and a smaller heap forks faster */
const RUNNER_NODE_FLAGS = ['--max-semi-space-size=1', '--max-old-space-size=64'];

export class CommandRunner {
  private child: ChildProcess | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (outcome: CommandOutcome) => void>();
  private closed = false;

  /** Forks the runner; what is sent waits in its IPC channel until it listens. */
  static start(onExit?: (why: string) => void): CommandRunner {
    const runner = new CommandRunner(onExit);
    runner.spawned();
    return runner;
  }

  private constructor(private readonly onExit?: (why: string) => void) {}

  readonly execute: CommandExecutor = (request, signal) => {
    const child = this.spawned();
    const id = ++this.nextId;
    return new Promise<CommandOutcome>((resolve) => {
      const onAbort = () => child.connected && child.send({ id, abort: true } satisfies RunnerMessage);
      this.pending.set(id, (outcome) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      });
      child.send({ id, request } satisfies RunnerMessage);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  };

  /** Stops taking commands; the runner exits, as it does when berthd dies. */
  close(): void {
    this.closed = true;
    if (this.child?.connected) this.child.disconnect();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private spawned(): ChildProcess {
    if (this.closed) throw new Error('the command runner is closed');
    if (this.child !== undefined) return this.child;
    if (MAIN === undefined) throw new Error('the command runner\'s module (command-runner-main.js) is missing: rebuild berth');
    const child = fork(MAIN, [], { execArgv: RUNNER_NODE_FLAGS, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child = child;
    child.on('message', (reply: RunnerReply) => {
      const settle = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      const { outcome } = reply;
      // the advanced serialization gives Uint8Arrays back
      settle?.({ ...outcome, stdout: Buffer.from(outcome.stdout.buffer, outcome.stdout.byteOffset, outcome.stdout.byteLength) });
    });
    // a runner that can't be forked fails the command that asked for it, as a spawn would
    child.on('error', (err: NodeJS.ErrnoException) => this.lost(child, `the command runner failed: ${err.message}`, err.code));
    child.on('exit', (code, signal) => this.lost(child, `the command runner exited (${signal ?? `code ${code}`}) before the command ended`));
    return child;
  }

  private lost(child: ChildProcess, message: string, code?: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    const outcome: CommandOutcome = { exitCode: null, signal: null, stdout: Buffer.alloc(0), stderr: '', notStarted: { message, code } };
    for (const settle of this.pending.values()) settle(outcome);
    this.pending.clear();
    if (!this.closed) this.onExit?.(message);
  }
}
