// Every command berth runs (mount, getfattr, ps, zstd...) starts here: none waits forever unasked,
// an abort kills it, and a failure is one typed error whose message says why in the command's own
// words. Commands run to their end go to the daemon's command runner once it has one
// (command-runner.ts), so that their spawns don't hold up berthd's event loop. runc's streaming
// calls, conmon and the stdin relay keep their own spawns (their stdio is the container's).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EngineError } from '../errors.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BUFFER_BYTES = 64 * 1024 * 1024;
/** what a streaming command's stderr keeps for its error message */
const STREAM_STDERR_BYTES = 64 * 1024;

export interface CommandOptions {
  /** killed (SIGKILL) when it runs longer; 60 s unless given */
  timeoutMs?: number;
  cwd?: string;
  /** the whole environment; berthd's own unless given */
  env?: NodeJS.ProcessEnv;
  /** written to its stdin, which then closes (at once without it) */
  input?: string | Buffer;
  /** killed when stdout or stderr grows beyond this; 64 MiB unless given */
  maxBufferBytes?: number;
  /** aborting kills it, and the call rejects with the signal's reason (as Node's own APIs do) */
  signal?: AbortSignal;
  /** exit codes besides 0 that answer rather than fail (getfattr's 1: no such attribute) */
  allowExitCodes?: readonly number[];
}

export interface CommandResult {
  exitCode: number;
  /** raw bytes: callers decode (getfattr's dumps are latin1, ps's output utf8) */
  stdout: Buffer;
  stderr: string;
}

export interface CommandFailure {
  /** null when it never ran or a signal ended it */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  timedOut: boolean;
}

/** A command that could not start, failed, was killed or ran out of time. */
export class CommandError extends EngineError implements CommandFailure {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly timedOut: boolean;

  /** The message is `name: reason`, the name left out where the reason (a line of stderr) starts with it already. */
  constructor(command: string, reason: string, failure: CommandFailure, options?: { cause?: unknown }) {
    const name = path.basename(command);
    super('system', reason.startsWith(`${name}:`) ? reason : `${name}: ${reason}`, options);
    this.name = 'CommandError';
    this.command = command;
    this.exitCode = failure.exitCode;
    this.signal = failure.signal;
    this.stderr = failure.stderr;
    this.timedOut = failure.timedOut;
  }
}

/** What a command is asked to do, in a form that crosses to the command runner (command-runner.ts). */
export interface CommandRequest {
  file: string;
  args: readonly string[];
  /** no limit when undefined */
  timeoutMs?: number;
  maxBufferBytes: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
}

/** How a command's run ended, before anyone judged it. */
export interface CommandOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** why it was stopped before its end */
  stoppedFor?: 'timeout' | 'abort' | 'overflow';
  /** why it could not start (Node's spawn error: message, and code when there is one) */
  notStarted?: { message: string; code?: string };
}

/** Where commands run: in this process, or in the command runner once the daemon has one. */
export type CommandExecutor = (request: CommandRequest, signal?: AbortSignal) => Promise<CommandOutcome>;

let executor: CommandExecutor = executeHere;

/** Sends every command from now on to `next` (the daemon's command runner); undefined goes back to running them here. */
export function useCommandExecutor(next: CommandExecutor | undefined): void {
  executor = next ?? executeHere;
}

/** Runs `file` (looked up on PATH, no shell) to its end and gathers its output. */
export async function runCommand(file: string, args: readonly string[], opts: CommandOptions = {}): Promise<CommandResult> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, maxBufferBytes = DEFAULT_MAX_BUFFER_BYTES, signal } = opts;
  signal?.throwIfAborted();
  const outcome = await executeCommand({ file, args, timeoutMs, maxBufferBytes, cwd: opts.cwd, env: opts.env, input: opts.input }, signal);
  if (outcome.notStarted !== undefined) throw notStarted(file, Object.assign(new Error(outcome.notStarted.message), { code: outcome.notStarted.code }));
  const { exitCode, stoppedFor } = outcome;
  const failure: CommandFailure = { exitCode, signal: outcome.signal, stderr: outcome.stderr, timedOut: stoppedFor === 'timeout' };
  if (stoppedFor === 'abort') throw signal?.reason;
  if (stoppedFor === 'timeout') throw new CommandError(file, `timed out after ${timeoutMs} ms`, failure);
  if (stoppedFor === 'overflow') throw new CommandError(file, `its output went over ${maxBufferBytes} bytes`, failure);
  if (exitCode === null || (exitCode !== 0 && !opts.allowExitCodes?.includes(exitCode))) throw exitError(file, failure);
  return { exitCode, stdout: outcome.stdout, stderr: failure.stderr };
}

/** Runs a command to its end, wherever commands run, and says how it ended without judging it (runc reads its own exit codes). */
export function executeCommand(request: CommandRequest, signal?: AbortSignal): Promise<CommandOutcome> {
  return executor(request, signal);
}

/** Runs a command as a child of this process: what the command runner does with each request. */
export async function executeHere(request: CommandRequest, signal?: AbortSignal): Promise<CommandOutcome> {
  const { file, args, timeoutMs, maxBufferBytes } = request;
  const child = spawn(file, args, { cwd: request.cwd, env: request.env, stdio: 'pipe' });
  const stdout = new CappedOutput(maxBufferBytes);
  const stderr = new CappedOutput(maxBufferBytes);
  let stoppedFor: CommandOutcome['stoppedFor'];
  // a child it started may still hold the pipes: once it is stopped, the rest of its output is of no interest
  const dropOutput = () => {
    child.stdout.destroy();
    child.stderr.destroy();
  };
  const stop = (why: NonNullable<typeof stoppedFor>) => {
    if (stoppedFor !== undefined) return;
    stoppedFor = why;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    else dropOutput();
  };
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = () => stop('abort');
  if (signal?.aborted) stop('abort');
  signal?.addEventListener('abort', onAbort, { once: true });
  child.stdout.on('data', (chunk: Buffer) => {
    if (!stdout.add(chunk)) stop('overflow');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (!stderr.add(chunk)) stop('overflow');
  });
  // a command may exit without reading its input: its exit status tells, not EPIPE
  child.stdin.on('error', () => undefined);
  child.stdin.end(request.input);
  child.once('exit', () => {
    if (stoppedFor !== undefined) dropOutput();
  });
  try {
    return await new Promise<CommandOutcome>((resolve) => {
      child.once('error', (err: NodeJS.ErrnoException) => resolve({ exitCode: null, signal: null, stdout: Buffer.alloc(0), stderr: '', notStarted: { message: err.message, code: err.code } }));
      child.once('close', (exitCode: number | null, exitSignal: NodeJS.Signals | null) => resolve({ exitCode, signal: exitSignal, stdout: stdout.bytes(), stderr: stderr.text(), stoppedFor }));
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

export interface FilterOptions {
  /** what the stream fails with instead of the command's CommandError (a caller's own kind or wording) */
  mapError?: (err: CommandError) => Error;
}

/**
 * `source` through a filter command (stdin to stdout) as a stream, with no time limit: a
 * decompressor over a layer of gigabytes. The stream ends once the command exits 0 and fails with
 * a CommandError otherwise (mapped by `mapError`), or with the source's error; destroying it kills
 * the command.
 */
export function pipeThroughCommand(source: Readable, file: string, args: readonly string[], opts: FilterOptions = {}): Readable {
  const child = spawn(file, args, { stdio: 'pipe' });
  const out = new PassThrough();
  const fail = (err: CommandError) => out.destroy(opts.mapError?.(err) ?? err);
  const stderr = new CappedOutput(STREAM_STDERR_BYTES);
  child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
  // the first end to fail decides (the pipeline then fails the other with the same error):
  // a source's error is the stream's, and a command that stops reading says why when it exits
  let failedFirst: 'source' | 'command' | undefined;
  source.once('error', () => (failedFirst ??= 'source'));
  child.stdin.once('error', () => (failedFirst ??= 'command'));
  pipeline(source, child.stdin).catch((err: Error) => {
    if (failedFirst !== 'command') out.destroy(err);
  });
  child.stdout.pipe(out, { end: false });
  child.once('error', (err) => fail(notStarted(file, err)));
  child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
    if (out.destroyed) return;
    if (exitCode === 0) out.end();
    else fail(exitError(file, { exitCode, signal, stderr: stderr.text(), timedOut: false }));
  });
  out.once('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return out;
}

function notStarted(file: string, err: Error): CommandError {
  return new CommandError(file, `cannot be started: ${err.message}`, { exitCode: null, signal: null, stderr: '', timedOut: false }, { cause: err });
}

/** Go's wording (exec.ExitError), unless stderr says more: dockerd's messages quote its first line. */
function exitError(file: string, failure: CommandFailure): CommandError {
  const firstLine = failure.stderr.trim().split('\n')[0].trim();
  return new CommandError(file, failure.exitCode === null ? `killed by ${failure.signal}` : firstLine || `exit status ${failure.exitCode}`, failure);
}

/** Output gathered up to a limit; `add` says whether the chunk fitted. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private sizeBytes = 0;

  constructor(private readonly limitBytes: number) {}

  add(chunk: Buffer): boolean {
    const room = this.limitBytes - this.sizeBytes;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, Math.max(room, 0));
    this.chunks.push(kept);
    this.sizeBytes += kept.length;
    return kept === chunk;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.bytes().toString('utf8');
  }
}
