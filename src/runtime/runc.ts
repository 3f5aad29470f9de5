// runc, called as a command: every call names berth's state directory (--root) and a JSON log of
// its own (--log, --log-format json), whose error lines runtime-errors.ts turns into engine errors;
// each call has a time limit, after which runc is killed.
//
// `create` leaves the container's init waiting for `start`; runc create exits at once, so the init
// is reparented to the nearest subreaper (conmon, in production) and only that one can collect
// its exit code. `run` is the foreground form: runc stays the init's parent, waits for it and
// exits with its status, which is what a one-shot (or a test without conmon) needs.
import { spawn, type StdioOptions } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { runtimeMessage, translateRuntimeError, type RuntimeOperation } from './runtime-errors.js';

export type RuncStatus = 'creating' | 'created' | 'running' | 'paused' | 'stopped';

/** `runc state`'s answer (and each row of `runc list`). */
export interface RuncState {
  id: string;
  /** 0 once stopped */
  pid: number;
  status: RuncStatus;
  bundle: string;
  rootfs?: string;
  created: string;
  annotations?: Record<string, string>;
}

/** A child's stdin, stdout and stderr: an open file descriptor, or /dev/null. */
export type ContainerStdio = [number | 'ignore', number | 'ignore', number | 'ignore'];

export interface RuncOptions {
  /** runc's --root: where it keeps its containers' state (under the exec root, on tmpfs) */
  stateDir: string;
  /** where each call's JSON log is written, read and deleted */
  logDir: string;
  /** the runc executable; `runc` from PATH by default */
  binary?: string;
  /** the limit of a call other than `run`; 30 s by default */
  timeoutMs?: number;
}

export interface CreateOptions {
  /** runc writes the container's init pid here */
  pidFile: string;
  /** a unix socket that receives the pty's master (process.terminal) */
  consoleSocket?: string;
  /** the container's stdio without a terminal; /dev/null by default */
  stdio?: ContainerStdio;
}

export interface RunOptions {
  /** the container's stdio; pipes collected into stdout and stderr by default */
  stdio?: ContainerStdio;
  /** none by default: a container runs as long as it likes */
  timeoutMs?: number;
}

interface CallOptions {
  /** the container the call is about, for error messages */
  id: string;
  input?: string;
  /** the child's stdio instead of pipes: the call then ends when runc exits, not when its output closes */
  stdio?: ContainerStdio;
  timeoutMs?: number;
}

interface CallResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** its JSON log, as written */
  log: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export class Runc {
  private readonly binary: string;
  private readonly stateDir: string;
  private readonly logDir: string;
  private readonly timeoutMs: number;
  private calls = 0;

  constructor(opts: RuncOptions) {
    this.binary = opts.binary ?? 'runc';
    this.stateDir = opts.stateDir;
    this.logDir = opts.logDir;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
    mkdirSync(this.logDir, { recursive: true, mode: 0o700 });
  }

  /** Creates the container from its bundle; its init waits for start(). */
  async create(id: string, bundle: string, opts: CreateOptions): Promise<void> {
    const args = ['create', '--bundle', bundle, '--pid-file', opts.pidFile];
    if (opts.consoleSocket !== undefined) args.push('--console-socket', opts.consoleSocket);
    await this.checked('create', [...args, id], { id, stdio: opts.stdio ?? ['ignore', 'ignore', 'ignore'] });
  }

  /** Runs the container in the foreground: creates, starts, waits for it and deletes it; its exit code (128+n after signal n). */
  async run(id: string, bundle: string, opts: RunOptions = {}): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const r = await this.call('run', ['run', '--bundle', bundle, id], { id, stdio: opts.stdio, timeoutMs: opts.timeoutMs ?? 0 });
    // the container's exit status and runc's own failure share the exit code: the log tells them apart
    const message = runtimeMessage(r.log, '', '');
    if (message !== '' || r.code === null) throw translateRuntimeError('run', id, message || `runc ended by ${r.signal}`);
    return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr };
  }

  async start(id: string): Promise<void> {
    await this.checked('start', ['start', id], { id });
  }

  async state(id: string): Promise<RuncState> {
    const r = await this.checked('state', ['state', id], { id });
    return parseJson<RuncState>(r.stdout, 'state');
  }

  /** Signals the container's init (or, with `all`, every process in it); a name (TERM, SIGTERM) or a number. */
  async kill(id: string, signal: string | number, opts: { all?: boolean } = {}): Promise<void> {
    await this.checked('kill', ['kill', ...(opts.all ? ['--all'] : []), id, String(signal)], { id });
  }

  /** Deletes a stopped container's runtime state (with `force`, kills a running one first). */
  async delete(id: string, opts: { force?: boolean } = {}): Promise<void> {
    await this.checked('delete', ['delete', ...(opts.force ? ['--force'] : []), id], { id });
  }

  async pause(id: string): Promise<void> {
    await this.checked('pause', ['pause', id], { id });
  }

  async resume(id: string): Promise<void> {
    await this.checked('resume', ['resume', id], { id });
  }

  /** Changes a running container's cgroup limits: the spec's linux.resources shape. */
  async update(id: string, resources: Record<string, unknown>): Promise<void> {
    await this.checked('update', ['update', '--resources', '-', id], { id, input: JSON.stringify(resources) });
  }

  async list(): Promise<RuncState[]> {
    const r = await this.checked('list', ['list', '--format', 'json'], { id: '' });
    // an empty list is `null`
    return parseJson<RuncState[] | null>(r.stdout, 'list') ?? [];
  }

  private async checked(operation: RuntimeOperation, args: string[], opts: CallOptions): Promise<CallResult> {
    const r = await this.call(operation, args, opts);
    if (r.code !== 0) throw translateRuntimeError(operation, opts.id, runtimeMessage(r.log, r.stderr, `runc exited with ${r.code ?? r.signal}`));
    return r;
  }

  private call(operation: RuntimeOperation, args: string[], opts: CallOptions): Promise<CallResult> {
    const logFile = path.join(this.logDir, `${operation}-${process.pid}-${++this.calls}.json`);
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const stdio: StdioOptions = opts.stdio ?? [opts.input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'];
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, ['--root', this.stateDir, '--log', logFile, '--log-format', 'json', ...args], { stdio });
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      let timedOut = false;
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              timedOut = true;
              child.kill('SIGKILL');
            }, timeoutMs)
          : undefined;
      // with pipes, wait for the output to end too; with the container's own stdio, runc's exit is the end
      child.on(opts.stdio ? 'exit' : 'close', (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        let log = '';
        try {
          log = readFileSync(logFile, 'utf8');
        } catch {
          // runc wrote nothing
        }
        rmSync(logFile, { force: true });
        if (timedOut) reject(new EngineError('system', `runc ${operation} ${opts.id} did not finish within ${timeoutMs} ms`));
        else resolve({ code, signal, stdout, stderr, log });
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        rmSync(logFile, { force: true });
        reject(new EngineError('system', `cannot run ${this.binary}: ${err.message}`, { cause: err }));
      });
    });
  }
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new EngineError('system', `runc ${what} printed something other than JSON: ${text.slice(0, 200)}`, { cause: err });
  }
}
