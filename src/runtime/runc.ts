// runc, called as a command: every call names berth's state directory (--root) and a JSON log of
// its own (--log, --log-format json), whose error lines runtime-errors.ts turns into engine errors;
// each call has a time limit, after which runc is killed.
//
// `create` leaves the container's init waiting for `start`; runc create exits at once, so the init
// is reparented to the nearest subreaper (conmon, in production) and only that one can collect
// its exit code. `run` is the foreground form: runc stays the init's parent, waits for it and
// exits with its status, which is what a one-shot (or a test without conmon) needs.
//
// `exec` starts another process in a running container from a process.json (exec-process.ts
// makes one from the container's spec). runc makes that process the leader of a session and
// process group of its own, and writes its pid to --pid-file; a time limit or an abort kills
// that group in the container (killing runc alone would leave it running there).
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { EngineError } from '../errors.js';
import { executeCommand } from './child-process.js';
import type { OciProcess } from './oci-spec.js';
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

export type OutputStream = 'stdout' | 'stderr';

export interface ExecOptions {
  /** the process's stdio; by default pipes, collected into stdout and stderr (or given to onOutput) */
  stdio?: ContainerStdio;
  /**
   * the output of the default pipes as it comes, in place of collecting it; a returned promise
   * holds that pipe until it settles (backpressure from a slow client)
   */
  onOutput?: (chunk: Buffer, stream: OutputStream) => void | Promise<void>;
  /** the process's stdin, piped from this stream (its end closes the process's stdin); /dev/null by default */
  stdin?: Readable;
  /** called with the process's host pid once runc has started it */
  onStart?: (pid: number) => void;
  /** a unix socket that receives the pty's master, for a process with a terminal */
  consoleSocket?: string;
  /** return once the process has started (exit code 0), leaving it running; its stdio is /dev/null by default */
  detach?: boolean;
  /** runc writes the process's pid here; a file in the log directory, removed after, by default */
  pidFile?: string;
  /** none by default; at the limit the process is killed and the call fails */
  timeoutMs?: number;
  /** kills the process; the call then fails with the signal's reason */
  signal?: AbortSignal;
}

export interface ExecResult {
  /** the process's own exit code (128+n after signal n) */
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
}

interface CallOptions {
  /** the container the call is about, for error messages */
  id: string;
  input?: string;
  /** the child's stdio instead of pipes: the call then ends when runc exits, not when its output closes */
  stdio?: ContainerStdio;
  /** end the call when runc exits even with pipes (a detached exec's process keeps them open) */
  untilExit?: boolean;
  /** piped into the child's stdin (in place of `input`) */
  stdin?: Readable;
  onOutput?: (chunk: Buffer, stream: OutputStream) => void | Promise<void>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** how the call is ended at its time limit or on abort; killing runc by default */
  stop?: (runc: ChildProcess) => void;
}

interface CallResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
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
    // the files of calls an earlier daemon did not see end (it was killed): each name carries its pid
    for (const name of readdirSync(this.logDir)) {
      if (/^[a-z]+-\d+-\d+\./.test(name) && name.split('-')[1] !== String(process.pid)) rmSync(path.join(this.logDir, name), { force: true });
    }
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
    return { exitCode: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
  }

  /**
   * Runs `proc` in the running container and waits for it (or, detached, for its start); its
   * exit code. A process that cannot be started throws runtime-errors.ts's error (a
   * ContainerCommandError: exit code 127 for a missing command, 126 for one that cannot run).
   */
  async exec(id: string, proc: OciProcess, opts: ExecOptions = {}): Promise<ExecResult> {
    opts.signal?.throwIfAborted();
    const name = `exec-${process.pid}-${++this.calls}`;
    const processFile = path.join(this.logDir, `${name}.process.json`);
    const pidFile = opts.pidFile ?? path.join(this.logDir, `${name}.pid`);
    writeFileSync(processFile, JSON.stringify(proc), { mode: 0o600 });
    // an old pid in a reused file would name the wrong group to stop
    rmSync(pidFile, { force: true });
    const args = ['exec', '--process', processFile, '--pid-file', pidFile];
    if (opts.detach) args.push('--detach');
    if (opts.consoleSocket !== undefined) args.push('--console-socket', opts.consoleSocket);
    const running = new AbortController();
    const onStart = opts.onStart;
    const watching = onStart && watchPidFile(pidFile, running.signal).then((pid) => pid !== undefined && onStart(pid));
    try {
      const r = await this.call('exec', [...args, id], {
        id,
        stdio: opts.stdio ?? (opts.detach ? ['ignore', 'ignore', 'ignore'] : undefined),
        untilExit: opts.detach,
        stdin: opts.stdin,
        onOutput: opts.onOutput,
        timeoutMs: opts.timeoutMs ?? 0,
        signal: opts.signal,
        stop: (runc) => void this.stopExec(id, runc, pidFile),
      });
      // as with run, the process's exit status and runc's failure share the exit code
      const message = runtimeMessage(r.log, '', '');
      if (message !== '' || r.code === null) throw translateRuntimeError('exec', id, message || `runc ended by ${r.signal}`);
      return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr };
    } finally {
      running.abort();
      await watching;
      rmSync(processFile, { force: true });
      if (opts.pidFile === undefined) rmSync(pidFile, { force: true });
    }
  }

  /** The host pids of the container's processes. */
  async ps(id: string): Promise<number[]> {
    const r = await this.checked('ps', ['ps', '--format', 'json', id], { id });
    return parseJson<number[] | null>(r.stdout.toString('utf8'), 'ps') ?? [];
  }

  async start(id: string): Promise<void> {
    await this.checked('start', ['start', id], { id });
  }

  async state(id: string): Promise<RuncState> {
    const r = await this.checked('state', ['state', id], { id });
    return parseJson<RuncState>(r.stdout.toString('utf8'), 'state');
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
    return parseJson<RuncState[] | null>(r.stdout.toString('utf8'), 'list') ?? [];
  }

  /**
   * Kills an exec'd process and its group (the children it did not send elsewhere): every process of
   * the container in the group named by the pid runc wrote. Without that pid, runc goes instead.
   */
  private async stopExec(id: string, runc: ChildProcess, pidFile: string): Promise<void> {
    const running = () => runc.exitCode === null && runc.signalCode === null;
    const deadline = Date.now() + PID_FILE_WAIT_MS;
    let leader = await readPid(pidFile);
    while (leader === undefined && running() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
      leader = await readPid(pidFile);
    }
    if (leader === undefined) {
      runc.kill('SIGKILL');
    } else {
      // only the container's processes: the group's number may be free (and reused) once it is empty
      // a container gone meanwhile has no process left to kill
      const pids = await this.ps(id).catch((): number[] => []);
      for (const pid of pids) if (pid === leader || processGroupOf(pid) === leader) killQuietly(pid);
    }
    // runc copies the process's output through pipes of its own and waits for them to close, which
    // a process that left the group (it stays, as under Docker) can put off for as long as it runs
    if (running()) {
      const grace = setTimeout(() => runc.kill('SIGKILL'), RUNC_EXIT_GRACE_MS);
      runc.once('exit', () => clearTimeout(grace));
    }
  }

  private async checked(operation: RuntimeOperation, args: string[], opts: CallOptions): Promise<CallResult> {
    const r = await this.call(operation, args, opts);
    if (r.code !== 0) throw translateRuntimeError(operation, opts.id, runtimeMessage(r.log, r.stderr.toString('utf8'), `runc exited with ${r.code ?? r.signal}`));
    return r;
  }

  /** A call with nothing to stream (start, delete, kill, state...): run wherever commands run (child-process.ts). */
  private async execute(operation: RuntimeOperation, args: string[], opts: CallOptions, logFile: string, timeoutMs: number): Promise<CallResult> {
    const outcome = await executeCommand(
      { file: this.binary, args: ['--root', this.stateDir, '--log', logFile, '--log-format', 'json', ...args], input: opts.input, timeoutMs: timeoutMs > 0 ? timeoutMs : undefined, maxBufferBytes: RUNC_OUTPUT_BYTES },
      opts.signal,
    );
    const log = await readFile(logFile, 'utf8').catch(() => '');
    await rm(logFile, { force: true });
    if (outcome.notStarted !== undefined) throw new EngineError('system', `cannot run ${this.binary}: ${outcome.notStarted.message}`);
    if (outcome.stoppedFor === 'timeout') throw new EngineError('system', `runc ${operation} ${opts.id} did not finish within ${timeoutMs} ms`);
    if (outcome.stoppedFor === 'abort') throw opts.signal?.reason;
    if (outcome.stoppedFor === 'overflow') throw new EngineError('system', `runc ${operation} ${opts.id}: its output went over ${RUNC_OUTPUT_BYTES} bytes`);
    return { code: outcome.exitCode, signal: outcome.signal, stdout: outcome.stdout, stderr: Buffer.from(outcome.stderr), log };
  }

  private call(operation: RuntimeOperation, args: string[], opts: CallOptions): Promise<CallResult> {
    const logFile = path.join(this.logDir, `${operation}-${process.pid}-${++this.calls}.json`);
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const plain = opts.stdio === undefined && opts.stdin === undefined && opts.onOutput === undefined && opts.stop === undefined && !opts.untilExit;
    if (plain) return this.execute(operation, args, opts, logFile, timeoutMs);
    const stdio: StdioOptions = opts.stdio ?? [opts.input !== undefined || opts.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'];
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, ['--root', this.stateDir, '--log', logFile, '--log-format', 'json', ...args], { stdio });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      const collect = (pipe: Readable | null, stream: OutputStream, into: Buffer[]): void => {
        pipe?.on('data', (d: Buffer) => {
          const held = opts.onOutput ? opts.onOutput(d, stream) : void into.push(d);
          if (held === undefined) return;
          pipe.pause();
          const resume = (): void => void pipe.resume();
          held.then(resume, resume);
        });
      };
      collect(child.stdout, 'stdout', stdout);
      collect(child.stderr, 'stderr', stderr);
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      if (opts.stdin !== undefined && child.stdin) {
        // EPIPE once the process has gone or closed its stdin: its exit says what happened
        child.stdin.on('error', () => {});
        opts.stdin.pipe(child.stdin);
      }
      let ended: 'timeout' | 'abort' | undefined;
      const end = (why: 'timeout' | 'abort') => {
        if (ended) return;
        ended = why;
        (opts.stop ?? ((c) => c.kill('SIGKILL')))(child);
      };
      const timer = timeoutMs > 0 ? setTimeout(() => end('timeout'), timeoutMs) : undefined;
      const onAbort = () => end('abort');
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const cleanUp = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      // with pipes, wait for the output to end too; with the container's own stdio, runc's exit is the end
      child.on(opts.stdio || opts.untilExit ? 'exit' : 'close', (code: number | null, signal: NodeJS.Signals | null) => {
        cleanUp();
        let log = '';
        try {
          log = readFileSync(logFile, 'utf8');
        } catch {
          // runc wrote nothing
        }
        rmSync(logFile, { force: true });
        if (ended === 'timeout') reject(new EngineError('system', `runc ${operation} ${opts.id} did not finish within ${timeoutMs} ms`));
        else if (ended === 'abort') reject(opts.signal?.reason);
        else resolve({ code, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), log });
      });
      child.on('error', (err) => {
        cleanUp();
        rmSync(logFile, { force: true });
        reject(new EngineError('system', `cannot run ${this.binary}: ${err.message}`, { cause: err }));
      });
    });
  }
}

/** what a plain call's output may hold (runc list's JSON over every container, at most) */
const RUNC_OUTPUT_BYTES = 64 * 1024 * 1024;
/** how long a stopped exec waits for runc to name its process before runc itself is killed */
const PID_FILE_WAIT_MS = 5000;
/** how long runc may take to end once its process is killed */
const RUNC_EXIT_GRACE_MS = 1000;

/** The pid runc writes once the process has started (it renames the file into place); undefined if the call ends first. */
async function watchPidFile(file: string, ended: AbortSignal): Promise<number | undefined> {
  const name = path.basename(file);
  const watcher = watch(path.dirname(file));
  try {
    const renamed = new Promise<void>((resolve) => {
      watcher.on('change', (_event, filename) => {
        if (filename === null || filename.toString() === name) resolve();
      });
      watcher.on('error', () => resolve());
      ended.addEventListener('abort', () => resolve(), { once: true });
    });
    // armed before the first look, so a file written at any moment is seen
    const pid = await readPid(file);
    if (pid !== undefined) return pid;
    await renamed;
    return await readPid(file);
  } finally {
    watcher.close();
  }
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The process group in /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new EngineError('system', `runc ${what} printed something other than JSON: ${text.slice(0, 200)}`, { cause: err });
  }
}
