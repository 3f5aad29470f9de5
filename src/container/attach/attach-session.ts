// One attach: the container's output from its log to the client, the client's stdin through the
// relay to conmon, until the container ends, the client detaches or goes away. Docker 20.10's rules
// (daemon/attach.go, container/stream/attach.go):
//   - logs=1 replays the log first; stream=1 then follows it (from the current end when logs=0)
//     until the container has ended and its output is all sent;
//   - stdin is used only when asked for and the container has OpenStdin;
//   - detach keys are looked for under a TTY only (a plain stream is copied as is);
//   - the end of the client's stdin closes the container's stdin (conmon does that when the relay
//     ends, unless it leaves stdin open) and, for a non-TTY container with StdinOnce, output goes on
//     until the container ends; otherwise the session ends there.
import type { Readable } from 'node:stream';
import type { FrameSink } from '../../lib/stream-session.js';
import { openStdinRelay, StdinRelayError, type StdinRelay } from '../../runtime/stdin-relay.js';
import { logEndOffset, readContainerLog } from '../logs/container-log.js';
import type { LogCodec } from '../logs/log-codecs.js';
import { DetachScanner, DEFAULT_DETACH_KEYS } from './detach-keys.js';


export interface AttachContainer {
  /** the log attach follows, and its format */
  log: { file: string; codec: LogCodec };
  tty: boolean;
  attachSocketPath: string;
  /** Resolves (or rejects) once the current run, or the next one for a container not yet started, has ended. */
  ended: Promise<unknown>;
  /** Resolves once the container runs and its attach socket exists; omitted for a running container. */
  started?: Promise<unknown>;
  /** OpenStdin. */
  stdinOpen: boolean;
  /** StdinOnce: the end of the client's stdin closes the container's, and output goes on. */
  stdinOnce: boolean;
}

export interface AttachOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  stream: boolean;
  logs: boolean;
  /** ctrl-p,ctrl-q when omitted. */
  detachKeys?: Buffer;
}

export type AttachOutcome = 'ended' | 'detached' | 'client-gone';

export interface AttachInput {
  container: AttachContainer;
  opts: AttachOptions;
  out: FrameSink;
  /** The client's stdin bytes. */
  input?: AsyncIterable<Buffer> | Readable;
  signal: AbortSignal;
}

export async function runAttach({ container, opts, out, input, signal }: AttachInput): Promise<AttachOutcome> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) stop.abort();
  let relay: StdinRelay | undefined;
  try {
    const wantOutput = opts.stdout || opts.stderr;
    if (!opts.stream) return wantOutput && opts.logs ? await sendLog(container, opts, out, stop.signal) : 'ended';

    // the first outcome that is one wins; the first failure fails the session
    let resolveOutcome!: (v: AttachOutcome) => void;
    let rejectOutcome!: (err: unknown) => void;
    const outcome = new Promise<AttachOutcome>((resolve, reject) => {
      resolveOutcome = resolve;
      rejectOutcome = reject;
    });
    const watch = (p: Promise<AttachOutcome | undefined>): void => {
      p.then((v) => v !== undefined && resolveOutcome(v), rejectOutcome);
    };
    if (stop.signal.aborted) resolveOutcome('client-gone');
    stop.signal.addEventListener('abort', () => resolveOutcome('client-gone'), { once: true });
    // without logs, output starts at the log's end as it is now, before stdin can reach the
    // process: an echo of what the client sends at once is never taken for old output
    const fromOffset = wantOutput && !opts.logs ? await logEndOffset(container.log.file) : undefined;
    watch(wantOutput ? sendLog(container, opts, out, stop.signal, { fromOffset }) : container.ended.then(() => 'ended', () => 'ended'));
    if (opts.stdin && container.stdinOpen && input !== undefined) {
      const opened = (r: StdinRelay): void => {
        relay = r;
        // a relay that fails (socat missing, no socket) fails the session, unless the process ended
        // as it connected (conmon closes the socket then); one that ends is no outcome
        watch(r.closed.then(() => undefined, (err: unknown) => endedSoon(container).then((ended) => {
          if (!ended) throw err;
          return undefined;
        })));
      };
      watch(pumpStdin(container, opts, input, stop.signal, opened).then((how) => {
        if (how === 'detached') return 'detached';
        // the client's stdin ended: only a non-TTY StdinOnce container keeps its output coming
        if (how === 'eof' && (container.tty || !container.stdinOnce)) return 'client-gone';
        return undefined;
      }));
    }
    return await outcome;
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop.abort();
    const r = relay as StdinRelay | undefined;
    if (r) {
      r.close();
      // a failure of the relay was the session's outcome if it came first; after it, it does not matter
      await r.closed.catch(() => {});
    }
  }
}

/** How long a failed relay waits to learn that the process ended (its exit is noticed through a file watch). */
const ENDED_GRACE_MS = 1000;

/** Whether the container (or exec) ends within the grace time. */
async function endedSoon(container: AttachContainer): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ENDED_GRACE_MS)));
  try {
    return await Promise.race([container.ended.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends the log: all of it without following (`follow` undefined), or followed from `follow.fromOffset`
 * (from the start with logs=1); a write the client can no longer take ends it as client-gone.
 */
async function sendLog(container: AttachContainer, opts: AttachOptions, out: FrameSink, signal: AbortSignal, follow?: { fromOffset?: number }): Promise<AttachOutcome> {
  const entries = readContainerLog(container.log.file, container.log.codec, {
    stdout: opts.stdout,
    stderr: opts.stderr,
    follow: follow !== undefined,
    fromOffset: follow?.fromOffset,
    ended: container.ended,
    signal,
  });
  for await (const entry of entries) {
    try {
      await out.write(entry.stream, entry.data);
    } catch {
      // FrameSink's contract: a rejected write is a client that is gone
      return 'client-gone';
    }
  }
  return signal.aborted ? 'client-gone' : 'ended';
}

async function pumpStdin(
  container: AttachContainer,
  opts: AttachOptions,
  input: AsyncIterable<Buffer> | Readable,
  signal: AbortSignal,
  opened: (relay: StdinRelay) => void,
): Promise<'detached' | 'eof' | 'relay-closed'> {
  await container.started;
  if (signal.aborted) return 'relay-closed';
  const relay = openStdinRelay(container.attachSocketPath);
  opened(relay);
  const scanner = container.tty ? new DetachScanner(opts.detachKeys ?? DEFAULT_DETACH_KEYS) : undefined;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      if (signal.aborted) return 'relay-closed';
      if (scanner === undefined) {
        await relay.write(chunk);
        continue;
      }
      const { data, detached } = scanner.push(chunk);
      if (data.length > 0) await relay.write(data);
      if (detached) return 'detached';
    }
    const rest = scanner?.flush();
    if (rest !== undefined && rest.length > 0) await relay.write(rest);
  } catch (err) {
    // a relay that ended by itself (conmon closed the socket as the container ended) is no failure;
    // one that failed rejects its closed promise, which fails the session
    if (err instanceof StdinRelayError) return 'relay-closed';
    throw err;
  }
  relay.end();
  // socat forwards what it holds and leaves once the socket's other way is quiet; killing it
  // before would lose the last bytes of stdin
  await relay.closed.catch(() => {});
  return 'eof';
}
