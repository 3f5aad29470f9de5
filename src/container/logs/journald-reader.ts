// Reads a journald container's log for `docker logs`, as dockerd 20.10's reader does through
// sd-journal (daemon/logger/journald/read.go), here through journalctl's export
// (runtime/journal.ts, journal-export.ts):
//
//   - the entries whose CONTAINER_ID_FULL is the container's, of every journal of the host
//     (sd_journal_open's default: `--merge`);
//   - each at the time journald received it (microseconds), stdout for PRIORITY 6 and stderr for 3
//     (an entry of another priority is not shown), MESSAGE's bytes and a newline, none when
//     CONTAINER_PARTIAL_MESSAGE=true; an entry with an empty MESSAGE (an empty line) is skipped;
//   - tail counts entries, skipped ones and both streams included, up to until; since (inclusive)
//     and until (inclusive, to the microsecond) then apply, and the stream choice last;
//   - following shows the entries that come until one is past until or the run has ended.
//
// journalctl is given whole seconds for since and until and the exact bounds are applied here, so
// that its parsing of fractions does not matter; with a tail, it is given neither (its --lines
// with --since counts from since, not back from the end). Following runs `journalctl --follow`;
// once the run has ended (the writer has had journald sync by then), it is stopped and one more
// pass reads what it had not shown yet, after the last entry it did show.
import type { Readable } from 'node:stream';
import { journalExport } from '../../runtime/journal.js';
import { JournalExportParser, type JournalRecord } from './journal-export.js';
import type { LogReadOptions } from './container-log.js';
import { formatRfc3339NanoFixed } from '../../lib/timestamp.js';
import type { LogEntry } from './log-codecs.js';

export interface JournalReadOptions extends Pick<LogReadOptions, 'stdout' | 'stderr' | 'sinceNs' | 'untilNs' | 'tail' | 'follow'> {
  /** Resolves (or rejects) once the container's run has ended and its output is in the journal: following stops after what is left. */
  ended?: Promise<unknown>;
  /** Called when following has shown all there is for now: a reader that gathers records sends them then. */
  onCaughtUp?: () => Promise<void>;
  signal?: AbortSignal;
}

/** the fields a message needs; journalctl adds __CURSOR and __REALTIME_TIMESTAMP to every entry */
const FIELDS = ['MESSAGE', 'PRIORITY', 'CONTAINER_PARTIAL_MESSAGE'];
const NEWLINE = Buffer.from('\n');
const PRIORITY_STREAMS: Readonly<Record<string, LogEntry['stream']>> = { '6': 'stdout', '3': 'stderr' };

interface Bounds {
  sinceUs?: bigint;
  untilUs?: bigint;
}

export async function* readJournal(containerId: string, opts: JournalReadOptions): AsyncGenerator<LogEntry> {
  const match = `CONTAINER_ID_FULL=${containerId}`;
  const bounds: Bounds = { sinceUs: micros(opts.sinceNs), untilUs: micros(opts.untilNs) };
  // until is past already: nothing that comes can be shown
  const follow = opts.follow && (bounds.untilUs === undefined || bounds.untilUs > nowMicros());
  if (!follow) {
    if (opts.tail === 0) return;
    yield* shown(await journalTail(match, bounds, opts.tail), bounds, opts);
    return;
  }

  const startUs = nowMicros();
  let lastCursor: string | undefined;
  const from = opts.tail === undefined ? ['--no-tail', ...sinceArgs(bounds.sinceUs)] : [`--lines=${opts.tail}`];
  const stream = journalExport(['--follow', ...commonArgs(), ...from, match]);
  let stopped = false;
  const stop = () => {
    stopped = true;
    stream.destroy();
  };
  opts.signal?.addEventListener('abort', stop, { once: true });
  if (opts.signal?.aborted) stop();
  let runEnded = false;
  const onEnd = () => {
    runEnded = true;
    stop();
  };
  opts.ended?.then(onEnd, onEnd);
  try {
    for await (const batch of recordBatches(stream, () => stopped)) {
      for (const record of batch) {
        if (bounds.untilUs !== undefined && record.realtimeUs > bounds.untilUs) return;
        lastCursor = record.cursor;
        const entry = entryOf(record, bounds, opts);
        if (entry !== undefined) yield entry;
        if (opts.signal?.aborted) return;
      }
      await opts.onCaughtUp?.();
    }
  } finally {
    opts.signal?.removeEventListener('abort', stop);
    stop();
  }
  if (opts.signal?.aborted || !runEnded) return;
  // what --follow had not shown when it was stopped: after the last entry it showed, or, when it
  // showed none, every entry since it started (and before, unless tail 0 said only new ones)
  const after = lastCursor === undefined ? sinceArgs(opts.tail === 0 ? maxOf(bounds.sinceUs, startUs) : bounds.sinceUs) : [`--after-cursor=${lastCursor}`];
  const rest = await collect(journalExport([...commonArgs(), ...after, match]));
  const restBounds = opts.tail === 0 && lastCursor === undefined ? { ...bounds, sinceUs: maxOf(bounds.sinceUs, startUs) } : bounds;
  yield* shown(rest, restBounds, opts);
}

/** The entries up to until, the last `tail` of them when it is given (before since applies). */
async function journalTail(match: string, bounds: Bounds, tail: number | undefined): Promise<JournalRecord[]> {
  const args = commonArgs();
  // journalctl counts its tail back from until itself, but not to the microsecond: with until, it is counted here
  if (bounds.untilUs !== undefined && bounds.untilUs > 0n) args.push(`--until=@${ceilSeconds(bounds.untilUs)}`);
  if (tail === undefined) args.push(...sinceArgs(bounds.sinceUs));
  else if (bounds.untilUs === undefined) args.push(`--lines=${tail}`);
  let records = await collect(journalExport([...args, match]));
  if (bounds.untilUs !== undefined) {
    const until = bounds.untilUs;
    const end = records.findIndex((r) => r.realtimeUs > until);
    if (end >= 0) records = records.slice(0, end);
    if (tail !== undefined) records = records.slice(Math.max(0, records.length - tail));
  }
  return records;
}

function* shown(records: readonly JournalRecord[], bounds: Bounds, opts: JournalReadOptions): Generator<LogEntry> {
  for (const record of records) {
    if (bounds.untilUs !== undefined && record.realtimeUs > bounds.untilUs) return;
    const entry = entryOf(record, bounds, opts);
    if (entry !== undefined) yield entry;
  }
}

/** The entry `docker logs` shows of a record, or undefined when it shows none. */
function entryOf(record: JournalRecord, bounds: Bounds, opts: JournalReadOptions): LogEntry | undefined {
  if (bounds.sinceUs !== undefined && record.realtimeUs < bounds.sinceUs) return undefined;
  const message = record.fields.get('MESSAGE');
  if (message === undefined || message.length === 0) return undefined;
  const stream = PRIORITY_STREAMS[record.fields.get('PRIORITY')?.toString('latin1') ?? ''];
  if (stream === undefined || !(stream === 'stdout' ? opts.stdout : opts.stderr)) return undefined;
  const partial = record.fields.get('CONTAINER_PARTIAL_MESSAGE')?.toString('latin1') === 'true';
  const timeNs = record.realtimeUs * 1000n;
  return { stream, timeNs, time: formatRfc3339NanoFixed(timeNs), data: partial ? message : Buffer.concat([message, NEWLINE]) };
}

/** Every journal of the host, only the fields needed. */
function commonArgs(): string[] {
  return ['--merge', `--output-fields=${FIELDS.join(',')}`];
}

/** since to the second (the exact bound is applied here) */
function sinceArgs(sinceUs: bigint | undefined): string[] {
  return sinceUs !== undefined && sinceUs > 0n ? [`--since=@${sinceUs / 1_000_000n}`] : [];
}

/** The records of the output as they come, a batch a read; a stream stopped on purpose just ends. */
async function* recordBatches(stream: Readable, stopped: () => boolean): AsyncGenerator<JournalRecord[]> {
  const parser = new JournalExportParser();
  try {
    for await (const chunk of stream) yield parser.push(chunk as Buffer);
  } catch (err) {
    if (!stopped()) throw err;
  }
}

async function collect(stream: Readable): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for await (const batch of recordBatches(stream, () => false)) records.push(...batch);
  return records;
}

function micros(ns: bigint | undefined): bigint | undefined {
  if (ns === undefined) return undefined;
  // floor, also before 1970
  return ns >= 0n ? ns / 1000n : -((-ns + 999n) / 1000n);
}

function ceilSeconds(us: bigint): bigint {
  return (us + 999_999n) / 1_000_000n;
}

function maxOf(a: bigint | undefined, b: bigint): bigint {
  return a === undefined || a < b ? b : a;
}

function nowMicros(): bigint {
  return BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
}
