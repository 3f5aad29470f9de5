// The processes of exec instances and health checks, in a running container. Two ways, by need:
//   - without a terminal, berthd runs `runc exec` itself and stays its parent: the process's stdio
//     are pipes to berthd (no copy through another process) and runc's exit is the process's,
//     whether or not a client still listens. This is the quick path `docker exec c true` takes.
//   - with a terminal, runc hands the pty's master over a unix socket, which Node cannot receive:
//     conmon runs the exec (its --exec mode, as podman does) and holds the pty. Output goes to a log
//     of the exec's own, input through conmon's attach socket, resizes through its ctl fifo, and the
//     exit code into exit files: the same parts a container's attach uses.
// A terminal exec's files live in <exec-root>/execs/<exec id>/ until it is removed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { resizeTerminal, startUnderConmon, ContainerStartError } from '../../runtime/conmon.js';
import { watchConmonExit } from '../../runtime/conmon-exit.js';
import type { ExitFileLocation } from '../../runtime/exit-files.js';
import type { OciProcess } from '../../runtime/oci-spec.js';
import type { OutputStream, Runc } from '../../runtime/runc.js';
import { translateRuntimeError } from '../../runtime/runtime-errors.js';

/** The exit code of a terminal exec whose conmon died without recording one. */
const LOST_EXIT_CODE = 255;

export interface PlainExecOptions {
  stdin?: Readable;
  /** a returned promise holds that stream's output until it settles */
  onOutput?: (chunk: Buffer, stream: OutputStream) => void | Promise<void>;
  onStart?: (pid: number) => void;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface TerminalExec {
  pid: number;
  logPath: string;
  attachSocketPath: string;
  /** the exit code, once the process has ended */
  exited: Promise<number>;
  resize(height: number, width: number): Promise<void>;
}

export interface ExecProcessesOptions {
  runc: Runc;
  /** runc's absolute path, for conmon */
  runcPath: string;
  /** runc's --root */
  runcRoot: string;
  /** conmon's --socket-dir-path */
  socketDir: string;
  /** where terminal execs get their directories */
  execsDir: string;
}

export class ExecProcesses {
  private readonly opts: ExecProcessesOptions;

  constructor(opts: ExecProcessesOptions) {
    this.opts = opts;
    // what a terminal exec left when the daemon stopped belongs to no instance any more
    rmSync(opts.execsDir, { recursive: true, force: true });
    mkdirSync(opts.execsDir, { recursive: true, mode: 0o700 });
  }

  /** Runs the process to its end; its exit code. Throws runtime-errors.ts's error when it cannot start. */
  async runPlain(containerId: string, process: OciProcess, opts: PlainExecOptions): Promise<number> {
    const r = await this.opts.runc.exec(containerId, process, opts);
    return r.exitCode;
  }

  /** Starts the process under conmon with a pty; resolves once it runs. */
  async startTerminal(containerId: string, execId: string, process: OciProcess): Promise<TerminalExec> {
    const dir = this.dir(execId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const specPath = path.join(dir, 'process.json');
    writeFileSync(specPath, JSON.stringify(process), { mode: 0o600 });
    const exit: ExitFileLocation = { exitDir: path.join(dir, 'exit'), containerId, persistDir: path.join(dir, 'persist') };
    const logPath = path.join(dir, 'exec.log');
    let started;
    try {
      started = await startUnderConmon({
        containerId,
        cuuid: execId,
        name: execId,
        execProcessSpec: specPath,
        bundleDir: dir,
        runtimePath: this.opts.runcPath,
        runtimeRoot: this.opts.runcRoot,
        runtimeLogPath: path.join(dir, 'runc.log'),
        containerPidFile: path.join(dir, 'pid'),
        conmonPidFile: path.join(dir, 'conmon.pid'),
        logPath,
        exitDir: exit.exitDir,
        persistDir: exit.persistDir ?? dir,
        socketDir: this.opts.socketDir,
        terminal: true,
        stdin: true,
      });
    } catch (err) {
      this.remove(execId);
      if (err instanceof ContainerStartError) throw translateRuntimeError('exec', containerId, err.runtimeMessage);
      throw err;
    }
    return {
      pid: started.containerPid,
      logPath,
      attachSocketPath: started.attachSocketPath,
      exited: exitCodeOf(exit, started.conmonPid),
      resize: (height, width) => resizeTerminal(dir, { height, width }),
    };
  }

  /** Removes a terminal exec's files (once it has ended). */
  remove(execId: string): void {
    rmSync(this.dir(execId), { recursive: true, force: true });
    // conmon's attach socket for the instance (its -u is the exec's ID)
    rmSync(path.join(this.opts.socketDir, execId), { recursive: true, force: true });
  }

  private dir(execId: string): string {
    return path.join(this.opts.execsDir, execId);
  }
}

/** conmon's recorded exit code, or LOST_EXIT_CODE when conmon is gone without writing one. */
async function exitCodeOf(loc: ExitFileLocation, conmonPid: number): Promise<number> {
  const exit = await watchConmonExit(loc, conmonPid);
  return 'lost' in exit ? LOST_EXIT_CODE : exit.exitCode;
}
