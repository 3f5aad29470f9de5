// Exec instances: created against a running container, started once, inspected after, as dockerd
// 20.10 keeps them (daemon/exec.go). An instance belongs to its container's run: when the run ends
// or the container goes, its instances go too (dockerd answers 404 for them then). The process runs
// to its end whether or not a client still listens (dockerd does not stop it when the client goes),
// and its exit code is recorded for inspect. Health checks run here too, as dockerd's do, with the
// same events.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { conflict, EngineError, notFound } from '../../errors.js';
import type { FrameSink, SessionIo, StreamSession } from '../../lib/stream-session.js';
import type { RootfsStore } from '../../rootfs/rootfs-store.js';
import { execProcess } from '../../runtime/exec-process.js';
import type { OciProcess } from '../../runtime/oci-spec.js';
import type { OutputStream } from '../../runtime/runc.js';
import { ContainerCommandError } from '../../runtime/runtime-errors.js';
import { runAttach } from '../attach/attach-session.js';
import type { ContainerEvents } from '../container-events.js';
import type { ContainerRecord } from '../container-record.js';
import type { ContainerRunner } from '../container-runner.js';
import { notRunningError, restartingError } from '../container-state.js';
import type { ContainerStore } from '../container-store.js';
import { LimitedOutput } from '../health/health-check.js';
import type { HealthProbe } from '../health/health-monitor.js';
import type { RunSignals } from '../run-signals.js';
import { heldCapabilities } from '../spec/capabilities.js';
import { resolveUser } from '../spec/user.js';
import type { ExecConfig, ExecInstance } from './exec-instance.js';
import type { ExecProcesses } from './exec-processes.js';
import { conmonLogCodec } from '../logs/log-drivers.js';

/** What dockerd records for an exec that could not start its process. */
const FAILED_START_EXIT_CODE = 126;
/** The exit code of an exec whose end could not be watched. */
const LOST_EXIT_CODE = 255;
/** How long a resize waits for the exec's process to start (dockerd's). */
const RESIZE_WAIT_MS = 10_000;
/**
 * How dockerd 20.10 ends the stream of a client that detached from an exec: the escape sequence
 * fails the exec's attach. The process runs on here, as a container's does after a detach
 * (dockerd 20.10 also closes the exec's stdin, which ends a shell, and records exit code 126).
 */
const DETACHED_WORDS = 'exec attach failed: error on attach stdin: read escape sequence\r\n';

/** A client attached to an exec's start. */
type ExecSession = SessionIo<FrameSink>;

export interface ExecServiceOptions {
  store: ContainerStore;
  /** instances end with their container's run */
  runs: RunSignals;
  events: ContainerEvents;
  /** the OCI spec of a container's current run, which an exec's process starts from */
  runner: ContainerRunner;
  /** where a running container's root filesystem is mounted, for the exec's user */
  rootfs: RootfsStore;
  processes: ExecProcesses;
  log: Logger;
}

/** One start of an instance: settles when the process runs (or failed to), and when all is done. */
interface ExecLaunch {
  started: Promise<void>;
  done: Promise<void>;
}

interface Live {
  instance: ExecInstance;
  /** settles once the process runs, or has failed to start */
  started: Promise<void>;
}

export class ExecService {
  private readonly opts: ExecServiceOptions;
  private readonly live = new Map<string, Live>();

  constructor(opts: ExecServiceOptions) {
    this.opts = opts;
    opts.runs.onEnded((containerId) => {
      for (const [id, l] of this.live) if (l.instance.containerId === containerId) this.live.delete(id);
    });
  }

  /** Registers an instance in a running container; its ID. */
  create(containerRef: string, config: ExecConfig): string {
    const container = this.activeContainer(containerRef, containerRef);
    const instance = this.register(container, config);
    this.event(instance, `exec_create: ${commandLine(config.cmd)}`);
    return instance.id;
  }

  inspect(id: string): ExecInstance {
    return this.find(id).instance;
  }

  /** The instances of a container that have not ended (container inspect's ExecIDs). */
  idsOf(containerId: string): string[] {
    return [...this.live.values()].filter((l) => l.instance.containerId === containerId && l.instance.status !== 'exited').map((l) => l.instance.id);
  }

  /**
   * Starts the instance without a client: settles once its process runs, or fails with why it
   * could not start (its exit code is recorded either way). 404 and 409s as dockerd.
   */
  async startDetached(id: string): Promise<void> {
    const launch = this.launch(this.claim(id));
    // its outcome is recorded on the instance; a failure to start is this request's answer
    launch.done.catch(() => {});
    await launch.started;
  }

  /** Claims the instance (404 and 409s as dockerd); the session runs it with the client's streams. */
  start(id: string): StreamSession<FrameSink> {
    const instance = this.claim(id);
    return { run: (io) => this.launch(instance, io).done };
  }

  /** Checks that the instance can start and claims it; throws dockerd's 404 and 409s. */
  private claim(id: string): ExecInstance {
    const { instance } = this.find(id);
    this.activeContainer(instance.containerId, instance.containerId);
    if (instance.exitCode !== null) throw conflict(`Error: Exec command ${id} has already run`);
    if (instance.status === 'running') throw conflict(`Error: Exec command ${id} is already running`);
    instance.status = 'running';
    this.event(instance, `exec_start: ${commandLine(instance.config.cmd)}`);
    return instance;
  }

  /** Runs a claimed instance, with the client's streams when one is attached. */
  private launch(instance: ExecInstance, session?: ExecSession): ExecLaunch {
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const live = this.live.get(instance.id);
    if (live) live.started = started;
    let failure: unknown;
    const done = this.run(instance, session, markStarted).catch((err: unknown) => {
      failure = err;
      const code = err instanceof ContainerCommandError ? err.exitCode : FAILED_START_EXIT_CODE;
      this.exited(instance, code);
      markStarted();
      throw err;
    });
    const outcome = started.then(() => {
      if (failure !== undefined) throw failure;
    });
    // a caller that waits for `done` alone has heard the failure there
    outcome.catch(() => {});
    return { started: outcome, done };
  }

  async resize(id: string, height: number, width: number): Promise<void> {
    const live = this.find(id);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), RESIZE_WAIT_MS)));
    const outcome = await Promise.race([live.started, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') throw new EngineError('system', 'timeout waiting for exec session ready');
    // containerd's answer for a process that has ended
    if (live.instance.status === 'exited') throw notFound('no such exec');
    await live.instance.resize?.(height, width);
  }

  /** The probe of a container's health checks: an exec of its own, with dockerd's exec events. */
  healthProbe(containerId: string): HealthProbe {
    return async (cmd, timeoutMs, signal) => {
      const container = this.opts.store.resolve(containerId);
      const config: ExecConfig = {
        cmd,
        env: [],
        user: '',
        workingDir: '',
        privileged: false,
        tty: false,
        attachStdin: false,
        attachStdout: true,
        attachStderr: true,
        detachKeys: undefined,
        consoleSize: undefined,
      };
      const instance = this.register(container, config);
      this.event(instance, `exec_create: ${commandLine(cmd)}`);
      instance.status = 'running';
      this.event(instance, `exec_start: ${commandLine(cmd)}`);
      const output = new LimitedOutput();
      try {
        const process = await this.processFor(instance);
        const exitCode = await this.opts.processes.runPlain(containerId, process, { onOutput: (chunk) => output.write(chunk), timeoutMs, signal });
        this.exited(instance, exitCode);
        return { exitCode, output: output.toString() };
      } finally {
        // as dockerd's probe, which unregisters its exec at once
        this.live.delete(instance.id);
      }
    };
  }

  private async run(instance: ExecInstance, session: ExecSession | undefined, markStarted: () => void): Promise<void> {
    const process = await this.processFor(instance);
    const { config } = instance;
    const onStart = (pid: number): void => {
      instance.pid = pid;
      markStarted();
    };
    if (!config.tty) {
      let clientGone = false;
      const wanted = { stdout: config.attachStdout, stderr: config.attachStderr };
      const send = (chunk: Buffer, stream: OutputStream): Promise<void> | undefined => {
        if (session === undefined || clientGone || !wanted[stream]) return undefined;
        return session.out.write(stream, chunk).catch(() => {
          clientGone = true;
        });
      };
      // runc shares the process's stderr and says there why a process could not start (which the
      // client gets in dockerd's words instead): output waits until the process is known to run
      let held: Array<[Buffer, OutputStream]> | undefined = [];
      const exitCode = await this.opts.processes.runPlain(instance.containerId, process, {
        stdin: config.attachStdin ? session?.input : undefined,
        // with no client (or one gone), the output is read and dropped so the process never blocks on it
        onOutput: (chunk, stream) => {
          if (held === undefined) return send(chunk, stream);
          held.push([chunk, stream]);
          return undefined;
        },
        onStart: (pid) => {
          onStart(pid);
          const early = held ?? [];
          held = undefined;
          for (const [chunk, stream] of early) void send(chunk, stream);
        },
      });
      this.exited(instance, exitCode);
      markStarted();
      return;
    }
    const term = await this.opts.processes.startTerminal(instance.containerId, instance.id, process);
    instance.resize = term.resize;
    if (config.consoleSize) {
      // the process may already have ended: its size no longer matters
      await term.resize(...config.consoleSize).catch((err: unknown) => this.opts.log.debug({ err, exec: instance.id }, 'first resize of a terminal exec'));
    }
    onStart(term.pid);
    const exited = term.exited
      .catch((err: unknown) => {
        this.opts.log.warn({ err, exec: instance.id }, 'watching a terminal exec for its exit');
        return LOST_EXIT_CODE;
      })
      .then((code) => this.exited(instance, code));
    try {
      if (session !== undefined) {
        const outcome = await runAttach({
          container: { log: { file: term.logPath, codec: conmonLogCodec }, tty: true, attachSocketPath: term.attachSocketPath, ended: exited, stdinOpen: config.attachStdin, stdinOnce: true },
          opts: { stdin: config.attachStdin, stdout: config.attachStdout, stderr: config.attachStderr, stream: true, logs: true, detachKeys: config.detachKeys },
          out: session.out,
          input: session.input,
          signal: session.signal,
        });
        if (outcome === 'detached') await session.out.write('stdout', Buffer.from(DETACHED_WORDS)).catch(() => {});
      }
    } finally {
      // the files go once the process has ended and the client has read its output
      void exited.finally(() => this.opts.processes.remove(instance.id));
    }
  }

  /** The process of an instance: the container's, with the instance's command, user, env and directory. */
  private async processFor(instance: ExecInstance): Promise<OciProcess> {
    const { config } = instance;
    const spec = await this.opts.runner.spec(instance.containerId);
    let user;
    if (config.user !== '') {
      const record = this.opts.store.byId(instance.containerId);
      user = resolveUser(this.opts.rootfs.mergedDir(instance.containerId), config.user, record?.hostConfig.GroupAdd);
    }
    return execProcess(spec, {
      args: config.cmd,
      env: config.env,
      user,
      cwd: config.workingDir || undefined,
      tty: config.tty,
      capabilities: config.privileged ? heldCapabilities() : undefined,
    });
  }

  private register(container: ContainerRecord, config: ExecConfig): ExecInstance {
    const instance: ExecInstance = {
      id: randomBytes(32).toString('hex'),
      containerId: container.id,
      runStartedAt: container.state.startedAt,
      config,
      status: 'created',
      exitCode: null,
      pid: 0,
    };
    this.live.set(instance.id, { instance, started: new Promise<void>(() => {}) });
    return instance;
  }

  private exited(instance: ExecInstance, exitCode: number): void {
    if (instance.status === 'exited') return;
    instance.status = 'exited';
    instance.exitCode = exitCode;
    instance.resize = undefined;
    this.event(instance, 'exec_die', { exitCode: String(exitCode) });
  }

  /** The instance, if its container's run is still the one it was made in. */
  private find(id: string): Live {
    const live = this.live.get(id);
    const container = live && this.opts.store.byId(live.instance.containerId);
    if (live === undefined || container === undefined || container.state.startedAt !== live.instance.runStartedAt) {
      if (live) this.live.delete(id);
      throw notFound(`No such exec instance: ${id}`);
    }
    return live;
  }

  /** The container, running and neither paused nor restarting, in dockerd's words (getActiveContainer). */
  private activeContainer(ref: string, asGiven: string): ContainerRecord {
    const c = this.opts.store.resolve(ref);
    const status = c.state.status;
    if (status === 'paused') throw conflict(`Container ${asGiven} is paused, unpause the container before exec`);
    if (status === 'restarting') throw restartingError(c.id);
    if (status !== 'running') throw notRunningError(c.id);
    return c;
  }

  private event(instance: ExecInstance, action: string, extra: Record<string, string> = {}): void {
    this.opts.events.publishById(instance.containerId, action, { execID: instance.id, ...extra });
  }
}

/** The command as dockerd names it in exec events: its words joined by spaces. */
function commandLine(cmd: string[]): string {
  return cmd.join(' ');
}
