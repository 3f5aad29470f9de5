// What the container stream routes (attach, attach over WebSocket, logs) need from the engine.
import type { AttachInput, AttachOutcome } from '../../../container/attach/attach-session.js';
import type { LogEntry, LogReadOptions } from '../../../container/logs/container-log.js';

export interface AttachTarget {
  id: string;
  logPath: string;
  tty: boolean;
  attachSocketPath: string;
  /** Resolves once the current run (or, for a container not yet started, the next one) has ended. */
  ended: Promise<unknown>;
  /** Resolves once the container runs and its attach socket exists (at once when running). */
  started: Promise<unknown>;
  openStdin: boolean;
  /** StdinOnce: the end of the client's stdin closes the container's, and output goes on. */
  stdinOnce: boolean;
  running: boolean;
}

export type AttachSession = Omit<AttachInput, 'container'>;

export interface ContainerStreamsBackend {
  /** Throws NoSuchContainer (notFound), or conflict for a paused or restarting container, in dockerd's words. */
  attachTarget(idOrName: string): AttachTarget;
  /** The container's log and whether it is running; throws NoSuchContainer. */
  logTarget(idOrName: string): AttachTarget;
  /** The detach keys of a spec (parseDetachKeys); throws "Invalid detach keys (x) provided". */
  detachKeys(spec: string | undefined): Buffer;
  /** Runs the session (runAttach with the target as its container). */
  attach(target: AttachTarget, session: AttachSession): Promise<AttachOutcome>;
  /** Reads the log (readContainerLog). */
  readLog(target: AttachTarget, opts: LogReadOptions): AsyncIterable<LogEntry>;
  /** Publishes the 'attach' event. */
  attached(id: string): void;
  /** Publishes the 'detach' event. */
  detached(id: string): void;
}
