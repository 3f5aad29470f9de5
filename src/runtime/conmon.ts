// Runs a container under conmon, as podman does (libpod/oci_conmon_common.go createOCIContainer):
// conmon runs `runc create`, holds the container's stdio, writes its log and, when it ends, its
// exit files. conmon daemonizes itself (fork, the first process exits, the second calls setsid and
// makes itself the child subreaper), so the container and its output outlive berthd: a stop, a
// crash or kill -9 of the daemon leaves them running, and the exit code lands in the exit files.
//
// The hand-shake, over two extra fds named in conmon's environment:
//   _OCI_STARTPIPE=4  conmon blocks on a read from it before it forks, so the caller could move it
//                     into a cgroup first (podman does); berth writes one byte at once.
//   _OCI_SYNCPIPE=3   after `runc create`, conmon writes one JSON line: {"data": <container pid>},
//                     or {"data": -1, "message": "<runc's stderr>"} when create failed.
// The container is then created, not started: the caller runs `runc start` (podman does the same),
// with the same --root. In exec mode (--exec) conmon runs `runc exec --detach` instead, and the
// line carries the exec'd process's pid once it runs; its exit is recorded like a container's.
//
// What conmon leaves for later use:
//   <bundle>/ctl      a fifo of control lines "<type> <height> <width>\n": type 1 resizes the
//                     terminal (for POST /containers/{id}/resize and attach's console size),
//                     type 2 reopens the log files (for log rotation).
//   <bundle>/winsz    conmon's own fifo between ctl and the pty; not for callers.
//   <socket-dir>/<cuuid>/attach
//                     the attach socket, for attach and `run -i` stdin: a SOCK_SEQPACKET socket
//                     (node:net cannot connect to it; the attach code needs a helper for that). Each
//                     packet from conmon is one byte naming the stream (1 stdout, 2 stderr) and the
//                     data; what a client writes goes to the container's stdin. <socket-dir>/<cuuid>
//                     is a symlink to the bundle, made by conmon to keep the path under the 108
//                     bytes of sun_path, and removed by conmon when it exits.
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { EngineError } from '../errors.js';

export interface ConmonOptions {
  /** runc's container ID; also the exit file's name (-c). */
  containerId: string;
  /** conmon's -u; names the attach socket's directory. The container ID by default. */
  cuuid?: string;
  /**
   * Runs this process.json in the existing, running container (`runc exec`, conmon's --exec) in
   * place of creating the container: an exec with a terminal, which needs conmon to hold its pty.
   * It is started at once; the bundle, exit dir, persist dir and pid files must be the exec's own.
   */
  execProcessSpec?: string;
  /** The container's name, for conmon's own log lines (-n). */
  name: string;
  /** The OCI bundle: config.json and rootfs; conmon puts ctl, winsz and attach here (-b). */
  bundleDir: string;
  /** The runc executable (-r). */
  runtimePath: string;
  /** runc's --root: its state directory; every later runc call must use the same. */
  runtimeRoot: string;
  /** Where runc writes its JSON log (--log-format=json --log): the source of its error messages. */
  runtimeLogPath: string;
  /** Where runc writes the container's pid (-p). */
  containerPidFile: string;
  /** Where conmon writes its own pid (--conmon-pidfile). */
  conmonPidFile: string;
  /** Where conmon writes the output in its k8s-file format, `<RFC3339Nano> <stdout|stderr> <F|P> <text>` lines: a file, or a fifo. */
  logPath: string;
  /** The directory shared by all containers where conmon writes `<containerId>` at exit. */
  exitDir: string;
  /** This container's own directory for its `exit` (and `oom`) files. */
  persistDir: string;
  /** A short directory for the attach socket's symlink (--socket-dir-path). */
  socketDir: string;
  /** A pseudo-terminal (-t); config.json's process.terminal must agree. */
  terminal: boolean;
  /** Keep a pipe to the container's stdin, fed from the attach socket (-i; implied by a terminal). */
  stdin: boolean;
  /** Keep stdin open when an attached client goes away (Docker's StdinOnce=false). */
  leaveStdinOpen?: boolean;
  /** conmon's own log level (warn by default); without --syslog it logs to stderr only until it daemonizes. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** The conmon executable: conmon on PATH by default. */
  conmonPath?: string;
  /** How long create may take before berth gives up on it (podman waits 240 s). */
  timeoutMs?: number;
}

export interface ConmonContainer {
  conmonPid: number;
  /** The container's first process, in the daemon's pid namespace. */
  containerPid: number;
  attachSocketPath: string;
  ctlPath: string;
}

/**
 * conmon or runc refused to create the container. The message is the runtime's own text, as
 * runc printed it ("runc create failed: unable to start container process: exec: \"nosuch\":
 * executable file not found in $PATH"); runtime-errors.ts sorts such messages into kinds.
 */
export class ContainerStartError extends EngineError {
  readonly runtimeMessage: string;

  constructor(runtimeMessage: string, options?: { cause?: unknown }) {
    super('system', runtimeMessage, options);
    this.name = 'ContainerStartError';
    this.runtimeMessage = runtimeMessage;
  }
}

const DEFAULT_TIMEOUT_MS = 240_000;
const MAX_CAPTURED_BYTES = 64 * 1024;

export function attachSocketPath(socketDir: string, cuuid: string): string {
  return path.join(socketDir, cuuid, 'attach');
}

export function ctlFifoPath(bundleDir: string): string {
  return path.join(bundleDir, 'ctl');
}

/** conmon's arguments, in podman's order (sharedConmonArgs, then createOCIContainer's). */
export function conmonArgs(opts: ConmonOptions): string[] {
  const cuuid = opts.cuuid ?? opts.containerId;
  const args = [
    '--api-version', '1',
    '-c', opts.containerId,
    '-u', cuuid,
    '-r', opts.runtimePath,
    '-b', opts.bundleDir,
    '-p', opts.containerPidFile,
    '-n', opts.name,
    '--exit-dir', opts.exitDir,
    '--persist-dir', opts.persistDir,
    '--socket-dir-path', opts.socketDir,
    // runtime args go before runc's subcommand: `runc --root R --log-format json --log F create ...`
    `--runtime-arg=--root=${opts.runtimeRoot}`,
    '--runtime-arg=--log-format=json',
    `--runtime-arg=--log=${opts.runtimeLogPath}`,
    '-l', `k8s-file:${opts.logPath}`,
    '--log-level', opts.logLevel ?? 'warn',
  ];
  if (opts.terminal) args.push('-t');
  else if (opts.stdin) args.push('-i');
  if (opts.leaveStdinOpen) args.push('--leave-stdin-open');
  if (opts.execProcessSpec !== undefined) args.push('--exec', '--exec-process-spec', opts.execProcessSpec);
  args.push('--conmon-pidfile', opts.conmonPidFile);
  return args;
}

/**
 * Starts conmon, which creates the container with `runc create` and stays as its monitor.
 * Resolves once the container exists (created, not yet started); rejects with
 * ContainerStartError carrying runc's message when it could not be created, having removed
 * the pid files.
 */
export async function startUnderConmon(opts: ConmonOptions): Promise<ConmonContainer> {
  const cuuid = opts.cuuid ?? opts.containerId;
  // conmon writes into these but creates none of them; a missing exit dir would lose the exit code
  for (const dir of [opts.exitDir, opts.persistDir, opts.socketDir, opts.runtimeRoot]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  await rm(opts.runtimeLogPath, { force: true });

  const child = spawn(opts.conmonPath ?? 'conmon', conmonArgs(opts), {
    // its own session from the start, so a signal to berthd's process group never reaches it
    detached: true,
    // conmon writes files (an `oom` marker) into its working directory: the bundle, as podman does
    cwd: opts.bundleDir,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      _OCI_SYNCPIPE: '3',
      _OCI_STARTPIPE: '4',
    },
  });
  const syncPipe = child.stdio[3] as Readable;
  const startPipe = child.stdio[4] as Writable;
  let output = '';
  const capture = (chunk: Buffer): void => {
    if (output.length < MAX_CAPTURED_BYTES) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);

  const firstExit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const syncLine = readLine(syncPipe);
  startPipe.on('error', () => {}); // conmon gone before it read: the exit below says why
  startPipe.end(Buffer.from([0]));

  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([Promise.all([firstExit, syncLine]), timedOut]);
    if (outcome === 'timeout') {
      await killConmonFromPidFile(opts.conmonPidFile, opts.containerId);
      child.kill('SIGKILL');
      throw await failure(opts, `conmon did not report on container ${opts.containerId} within ${timeoutMs} ms`);
    }
    const [exit, line] = outcome;
    const message = parseSyncMessage(line);
    if (message === undefined) {
      const how = exit.code !== null ? `exit status ${exit.code}` : `signal ${exit.signal}`;
      const said = output.trim();
      throw await failure(opts, `conmon ended (${how}) without reporting on the container${said ? `: ${said}` : ''}`);
    }
    if (message.data < 0) {
      throw await failure(opts, message.message?.trim() || output.trim() || 'container create failed');
    }
    const conmonPid = await readPidFile(opts.conmonPidFile);
    return {
      conmonPid,
      containerPid: message.data,
      attachSocketPath: attachSocketPath(opts.socketDir, cuuid),
      ctlPath: ctlFifoPath(opts.bundleDir),
    };
  } finally {
    clearTimeout(timer);
    // conmon's second process keeps its ends; berthd lets go of its own
    for (const s of [child.stdout, child.stderr, syncPipe, startPipe]) s?.destroy();
    child.unref();
  }
}

interface SyncMessage {
  data: number;
  message?: string;
}

function parseSyncMessage(line: string | undefined): SyncMessage | undefined {
  if (line === undefined || line.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new ContainerStartError(`conmon wrote ${JSON.stringify(line)} on the sync pipe`);
  }
  const m = parsed as Partial<SyncMessage>;
  if (typeof m.data !== 'number') throw new ContainerStartError(`conmon wrote ${JSON.stringify(line)} on the sync pipe`);
  return { data: m.data, message: typeof m.message === 'string' ? m.message : undefined };
}

/** The first line on the stream, or what came before its end; undefined for nothing at all. */
function readLine(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const done = (): void => {
      stream.off('data', onData);
      resolve(text === '' ? undefined : text);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        text = text.slice(0, nl);
        done();
      }
    };
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
}

/**
 * The error for a create that failed, with runc's own words when its JSON log has them (the last
 * error-level line, as podman's readConmonPipeData prefers), else with what conmon said.
 */
async function failure(opts: ConmonOptions, fallback: string): Promise<ContainerStartError> {
  const fromLog = await lastRuntimeError(opts.runtimeLogPath);
  await rm(opts.conmonPidFile, { force: true });
  await rm(opts.containerPidFile, { force: true });
  return new ContainerStartError(fromLog ?? fallback);
}

/** The message of the last error in runc's JSON log, if any. */
export async function lastRuntimeError(runtimeLogPath: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(runtimeLogPath, 'utf8');
  } catch {
    return undefined;
  }
  let found: string | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
      if ((entry.level === 'error' || entry.level === 'fatal') && typeof entry.msg === 'string') found = entry.msg;
    } catch {
      // a line that is not JSON (runc's own panic output) is not a message
    }
  }
  return found;
}

export async function readPidFile(file: string): Promise<number> {
  const text = (await readFile(file, 'utf8')).trim();
  const pid = Number(text);
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`pid file ${file} holds ${JSON.stringify(text)}`);
  return pid;
}

/**
 * Whether pid is still the conmon watching this container (and not a recycled pid): its comm is
 * conmon and its command line names the container.
 */
export async function isConmonAlive(pid: number, containerId: string): Promise<boolean> {
  try {
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim();
    if (comm !== 'conmon') return false;
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    const i = argv.indexOf('-c');
    return i >= 0 && argv[i + 1] === containerId;
  } catch {
    return false;
  }
}

async function killConmonFromPidFile(file: string, containerId: string): Promise<void> {
  let pid: number;
  try {
    pid = await readPidFile(file);
  } catch {
    return;
  }
  if (await isConmonAlive(pid, containerId)) process.kill(pid, 'SIGKILL');
}

export interface TerminalSize {
  height: number;
  width: number;
}

/**
 * Resizes a terminal container's pty through conmon's ctl fifo. Fails when no conmon reads the
 * fifo (ENXIO: the container has ended).
 */
export async function resizeTerminal(bundleDir: string, size: TerminalSize): Promise<void> {
  for (const [name, v] of Object.entries(size)) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new RangeError(`terminal ${name} ${v} is not between 0 and 65535`);
  }
  await writeCtl(bundleDir, `1 ${size.height} ${size.width}\n`);
}

async function writeCtl(bundleDir: string, line: string): Promise<void> {
  // non-blocking: a fifo without a reader fails with ENXIO at once instead of hanging
  const fh = await open(ctlFifoPath(bundleDir), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
  try {
    // one write under PIPE_BUF is atomic, so lines from concurrent callers never interleave
    await fh.write(line);
  } finally {
    await fh.close();
  }
}
