// The one place where the OCI runtime's words become engine errors. runc says what went wrong in
// the "msg" of its JSON log lines (--log-format json) and on stderr; dockerd's rules for them
// (v20.10.27 daemon/start.go translateContainerdStartErr) decide the kind and the exit code a
// container that cannot start gets, and the docker CLI reads the message text for its own exit
// code (cli/command/container/run.go runStartContainerErr): "executable file not found" and "no
// such file or directory" give 127, "permission denied" 126. So the text stays runc's, in the
// shape Docker 20.10 printed it: `OCI runtime create failed: ...: unknown`. An exec that cannot
// start is also such an error, with the exit codes `docker run` gives: 127 for a missing command,
// 126 for every other failure (dockerd 20.10 records 126 for a missing one too, v20.10.27
// daemon/exec.go; berth follows the shell's and `docker run`'s convention, which issue 5 asks for).
import { EngineError, type ErrorKind } from '../errors.js';

export type RuntimeOperation = 'create' | 'start' | 'run' | 'exec' | 'state' | 'kill' | 'delete' | 'pause' | 'resume' | 'update' | 'list' | 'ps';

/**
 * The container's command could not be started: it is missing (127) or cannot be run (126).
 * (conmon.ts's ContainerStartError carries runc's raw words; translateRuntimeError sorts them.)
 */
export class ContainerCommandError extends EngineError {
  /** what Docker records as the container's exit code */
  readonly exitCode: 126 | 127;

  constructor(message: string, exitCode: 126 | 127) {
    super('invalidParameter', message);
    this.name = 'ContainerCommandError';
    this.exitCode = exitCode;
  }
}

/** Any other failure of a runtime call; `runtimeMessage` is runc's own text. */
export class RuntimeError extends EngineError {
  readonly operation: RuntimeOperation;
  readonly runtimeMessage: string;

  constructor(kind: ErrorKind, operation: RuntimeOperation, runtimeMessage: string, message: string) {
    super(kind, message);
    this.name = 'RuntimeError';
    this.operation = operation;
    this.runtimeMessage = runtimeMessage;
  }
}

interface LogLine {
  level?: string;
  msg?: string;
}

/** The error messages in a runc JSON log (level error or fatal), oldest first; plain lines are kept as they are. */
export function runtimeLogErrors(logText: string): string[] {
  const out: string[] = [];
  for (const line of logText.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: LogLine | undefined;
    try {
      parsed = JSON.parse(line) as LogLine;
    } catch {
      out.push(line.trim());
      continue;
    }
    if ((parsed.level === 'error' || parsed.level === 'fatal') && typeof parsed.msg === 'string') out.push(parsed.msg);
  }
  return out;
}

/** runc's message for a failed call: the last error in its log, else its stderr, else how it ended. */
export function runtimeMessage(logText: string, stderr: string, fallback: string): string {
  const fromLog = runtimeLogErrors(logText).at(-1);
  if (fromLog !== undefined) return fromLog;
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.at(-1) ?? fallback;
}

const CONFLICTS = [
  'container not running',
  'container not paused',
  'cannot start a container that has stopped',
  'cannot start an already running container',
  'that is not stopped',
  'container with given id already exists',
  'container is paused',
  'container is not paused',
  'cannot exec in a stopped container',
];

/** a missing command (or working directory), and one that cannot be run */
const NOT_FOUND = ['executable file not found', 'no such file or directory'];
const CANNOT_RUN = ['permission denied', 'exec format error'];

/** The engine error for a failed runtime call on container `id`. */
export function translateRuntimeError(operation: RuntimeOperation, id: string, runtimeText: string): EngineError {
  // runc 1.1 prefixes its top-level failures: "runc create failed: ..."
  const msg = runtimeText.replace(/^runc \w+ failed: /, '');
  const lower = msg.toLowerCase();
  const startsProcess = operation === 'create' || operation === 'run' || operation === 'start';
  if (operation === 'exec') {
    if (NOT_FOUND.some((m) => lower.includes(m)) || CANNOT_RUN.some((m) => lower.includes(m))) {
      // a missing working directory ("chdir to cwd ...: no such file or directory") is no missing command
      const missingCommand = NOT_FOUND.some((m) => lower.includes(m)) && !lower.includes('chdir to cwd');
      return new ContainerCommandError(`OCI runtime exec failed: ${msg}: unknown`, missingCommand ? 127 : 126);
    }
  } else if (startsProcess) {
    const docker = `OCI runtime ${operation === 'start' ? 'start' : 'create'} failed: ${msg}: unknown`;
    if (NOT_FOUND.some((m) => lower.includes(m))) return new ContainerCommandError(docker, 127);
    if (CANNOT_RUN.some((m) => lower.includes(m))) return new ContainerCommandError(docker, 126);
    if (lower.includes('not a directory')) {
      return new ContainerCommandError(`${docker}: Are you trying to mount a directory onto a file (or vice-versa)? Check if the specified host path exists and is the expected type`, 127);
    }
  }
  if (lower === 'container does not exist' || lower.includes('container does not exist')) {
    return new RuntimeError('notFound', operation, runtimeText, `no such container in the runtime: ${id}`);
  }
  if (CONFLICTS.some((c) => lower.includes(c))) return new RuntimeError('conflict', operation, runtimeText, `container ${id}: ${msg}`);
  if (lower.startsWith('unknown signal') || lower.includes('unable to signal init: invalid argument')) {
    return new RuntimeError('invalidParameter', operation, runtimeText, `invalid signal: ${msg}`);
  }
  return new RuntimeError('system', operation, runtimeText, `OCI runtime ${operation} failed: ${msg}: unknown`);
}
