// The manager's side of `docker service logs`, as dockerd's ServiceLogs and swarmkit's log broker
// serve a subscription: the tasks it selects (a service's that have reached `running`, or the one
// task asked for), each task's log read on its node, and the entries passed on as they come, each
// with its task's context. Without follow it ends once every log is read, with swarmkit's
// "incomplete log stream" error when a node could not be read or a task was never scheduled. With
// follow it goes on until the client goes, whatever happens to the tasks (swarmkit's follow never
// completes), and takes each task of the selection that starts meanwhile (a restart, a scale, an
// update): that one from the start of its log, whatever the tail, since all of it is new.
import { EngineError } from '../../errors.js';
import { goQuote } from '../../build/dockerfile/go-quote.js';
import type { StreamSession, ItemSink } from '../../lib/stream-session.js';
import type { TaskLogEntry, TaskLogRead } from '../agent/task-runtime.js';
import { findService, findTask } from '../services/service-control.js';
import { stateRank, type TaskRecord } from '../services/service-records.js';
import type { ServiceState } from '../services/service-state.js';

/** An entry of a task's log, and whose it is. */
export interface LogMessage extends TaskLogEntry {
  nodeId: string;
  serviceId: string;
  taskId: string;
}

/** The query as dockerd's route hands it on (the streams checked already). */
export interface LogsRequest {
  stdout: boolean;
  stderr: boolean;
  follow: boolean;
  since: string | null;
  tail: string | null;
}

/** Raw when the selection's tasks have a TTY. */
export interface LogsSession extends StreamSession<ItemSink<LogMessage>> {
  tty: boolean;
}

/** Where a task's log is read: on its node (Manager.taskLogs). */
export type TaskLogSource = (task: TaskRecord, read: TaskLogRead, signal: AbortSignal) => AsyncIterable<TaskLogEntry>;

export type LogSelector = { service: string } | { task: string };

/** Checks the selection and the options, in dockerd's order and words, before anything is sent. */
export async function openLogs(services: ServiceState, source: TaskLogSource, selector: LogSelector, req: LogsRequest): Promise<LogsSession> {
  let tty: boolean;
  let matches: (t: TaskRecord) => boolean;
  if ('service' in selector) {
    const service = (await findService(services, selector.service)).value;
    tty = service.spec.TaskTemplate.ContainerSpec?.TTY === true;
    matches = (t) => t.serviceId === service.id;
  } else {
    const task = (await findTask(services, selector.task)).value;
    tty = task.spec.ContainerSpec?.TTY === true;
    matches = (t) => t.id === task.id;
  }
  const read: TaskLogRead = { stdout: req.stdout, stderr: req.stderr, follow: req.follow, tail: parseTail(req.tail), sinceNs: parseSince(req.since) };
  const explicit = 'task' in selector;
  return { tty, run: ({ out, signal }) => subscribe(services, source, { matches, explicit, read }, out, signal) };
}

interface Selection {
  matches: (t: TaskRecord) => boolean;
  /** a task asked for by its ID is read whatever its state */
  explicit: boolean;
  read: TaskLogRead;
}

async function subscribe(services: ServiceState, source: TaskLogSource, sel: Selection, out: ItemSink<LogMessage>, signal: AbortSignal): Promise<void> {
  // the client gone (a write that fails) stops every task's read
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let clientGone: unknown;
  // one write at a time, whichever task's entry it is
  let writing: Promise<unknown> = Promise.resolve();
  const send = (m: LogMessage): Promise<void> => {
    const sent = writing.then(() => out.write(m));
    writing = sent.catch(() => undefined);
    return sent;
  };
  // a node's failure is one reason however many of its tasks it fails, as swarmkit reads a node once
  const failures = new Set<string>();
  const reads: Array<Promise<void>> = [];
  const opened = new Set<string>();
  const open = (t: TaskRecord, read: TaskLogRead): void => {
    opened.add(t.id);
    reads.push(
      (async () => {
        const entries = source(t, read, stop.signal);
        try {
          for await (const entry of entries) {
            try {
              await send({ ...entry, nodeId: t.nodeId, serviceId: t.serviceId, taskId: t.id });
            } catch (err) {
              clientGone ??= err;
              stop.abort();
              return;
            }
          }
        } catch (err) {
          if (!stop.signal.aborted) failures.add((err as Error).message);
        }
      })(),
    );
  };
  try {
    const { tasks, revision } = await services.tasksAt();
    const selected = tasks.filter(sel.matches);
    if (sel.read.follow) {
      // a task is read once it has run: its container is on its node then
      const started = (t: TaskRecord) => t.nodeId !== '' && t.status.containerStatus !== undefined;
      const watch = services.watchTasks(revision, (t) => {
        if (sel.matches(t) && !opened.has(t.id) && started(t) && !stop.signal.aborted) open(t, { ...sel.read, tail: undefined });
      });
      for (const t of selected.filter(started)) open(t, sel.read);
      await new Promise<void>((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener('abort', () => resolve(), { once: true })));
      watch.cancel();
      await Promise.all(reads);
    } else {
      const chosen = selected.filter((t) => sel.explicit || stateRank(t.status.state) >= stateRank('running'));
      const unscheduled = chosen.filter((t) => t.nodeId === '').map((t) => `task ${t.id} has not been scheduled`);
      for (const t of chosen) if (t.nodeId !== '') open(t, sel.read);
      await Promise.all(reads);
      if (clientGone === undefined && (failures.size > 0 || unscheduled.length > 0)) {
        throw new EngineError('system', `rpc error: code = Unknown desc = warning: incomplete log stream. some logs could not be retrieved for the following reasons: ${[...failures, ...unscheduled].join(', ')}`);
      }
    }
    if (clientGone !== undefined) throw clientGone;
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop.abort();
  }
}

/** dockerd's: "" and "all" for every entry; otherwise a count, as strconv.Atoi reads it. */
function parseTail(text: string | null): number | undefined {
  if (text === null || text === '' || text === 'all') return undefined;
  const n = /^[+-]?\d+$/.test(text) ? BigInt(text) : undefined;
  if (n === undefined || n > INT64_MAX || n < INT64_MIN) throw new EngineError('system', 'tail value must be a positive integer or "all"');
  if (n < 0n) throw new EngineError('system', 'negative tail values not supported');
  return Number(n);
}

/** Seconds since the epoch with an optional fraction, as api/types/time.ParseTimestamps reads them, with its errors. */
function parseSince(text: string | null): bigint | undefined {
  if (text === null || text === '') return undefined;
  const at = text.indexOf('.');
  const seconds = parseInt64(at < 0 ? text : text.slice(0, at));
  if (at < 0) return seconds * NANOS_PER_SECOND;
  const digits = text.slice(at + 1);
  const fraction = parseInt64(digits);
  // its n * 10^(9 - digits), cut to whole nanoseconds
  const nanos = digits.length <= 9 ? fraction * 10n ** BigInt(9 - digits.length) : fraction / 10n ** BigInt(digits.length - 9);
  return seconds * NANOS_PER_SECOND + nanos;
}

function parseInt64(text: string): bigint {
  const fail = (why: string) => new EngineError('system', `could not parse since timestamp: strconv.ParseInt: parsing ${goQuote(text)}: ${why}`);
  if (!/^[+-]?\d+$/.test(text)) throw fail('invalid syntax');
  const n = BigInt(text);
  if (n > INT64_MAX || n < INT64_MIN) throw fail('value out of range');
  return n;
}

const NANOS_PER_SECOND = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
