// A container's log as conmon writes it (k8s-file): one record per line,
//   <RFC3339Nano time> <stdout|stderr> <F|P> <text>\n
// F is a whole line whose newline conmon took off; P is a chunk that had no newline yet. Each record
// is one entry, as Docker's json-file keeps a partial message as an entry of its own: `docker logs`
// prints them back to back, each with its own time under timestamps=1, and tail counts them all,
// of both streams, before since, until and the stream choice filter (dockerd 20.10 does the same).
//
// With a rotating driver (log-rotator.ts), the records before the current file's are in <log>.1
// (<log>.1.gz compressed) and older ones in .2, .3...: they are read first, oldest first, and tail
// counts across them.
//
// Following watches the log's directory (which also sees the file appear, or be replaced when
// conmon rotates it) with a poll as a fallback, and stops once the container has ended and the rest
// of the file is read: conmon drains the container's output into the log before it writes the
// exit file (see test/integration/container/container-log.test.ts).
import { watch, type FSWatcher } from 'node:fs';
import { open, readdir, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

export interface LogEntry {
  stream: 'stdout' | 'stderr';
  timeNs: bigint;
  /** The time as dockerd prints it under timestamps=1: UTC, nine fraction digits. */
  time: string;
  /** The bytes, with the newline for a whole line (F). */
  data: Buffer;
}

export interface LogReadOptions {
  stdout: boolean;
  stderr: boolean;
  sinceNs?: bigint;
  untilNs?: bigint;
  /** The last this many records (of both streams); undefined for all. */
  tail?: number;
  follow: boolean;
  /** Start at this byte: the log's end when an attach without logs began (logEndOffset). */
  fromOffset?: number;
  /** Resolves (or rejects) once the container's process has ended: following stops after what is left. */
  ended?: Promise<unknown>;
  /** Called when following has read all there is and waits for more: a reader that gathers records sends them then. */
  onCaughtUp?: () => Promise<void>;
  signal?: AbortSignal;
}

const BLOCK_BYTES = 64 * 1024;
const POLL_MS = 500;
const NEWLINE = 0x0a;
const NANOS_PER_SECOND = 1_000_000_000n;
const TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

export async function* readContainerLog(logPath: string, opts: LogReadOptions): AsyncGenerator<LogEntry> {
  const waker = opts.follow ? new ChangeWaker(logPath, opts) : undefined;
  let fh: FileHandle | undefined;
  try {
    fh = await openIfExists(logPath);
    const start = fh === undefined ? { offset: 0, records: 0 } : await startOffset(fh, opts);
    let pos = start.offset;
    // the rotated files, unless only new output is wanted or the current file holds the whole tail
    if (opts.fromOffset === undefined && (opts.tail === undefined || start.records < opts.tail)) {
      const stopped = yield* rotatedEntries(logPath, opts, opts.tail === undefined ? undefined : opts.tail - start.records);
      if (stopped) return;
    }
    let rest = Buffer.alloc(0);
    for (;;) {
      if (waker?.aborted) return;
      // Sampled before the pass: whatever the container wrote before it ended is in the file by then.
      const lastPass = waker === undefined || waker.ended || passedUntil(opts.untilNs);
      if (fh !== undefined) {
        const block = Buffer.allocUnsafe(BLOCK_BYTES);
        for (;;) {
          const { bytesRead } = await fh.read(block, 0, BLOCK_BYTES, pos);
          if (bytesRead === 0) break;
          pos += bytesRead;
          const chunk = rest.length === 0 ? block.subarray(0, bytesRead) : Buffer.concat([rest, block.subarray(0, bytesRead)]);
          let start = 0;
          for (let nl = chunk.indexOf(NEWLINE, start); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
            const entry = parseLogLine(chunk.subarray(start, nl));
            start = nl + 1;
            if (entry === undefined) continue;
            if (opts.untilNs !== undefined && entry.timeNs > opts.untilNs) return;
            if (opts.sinceNs !== undefined && entry.timeNs < opts.sinceNs) continue;
            if (entry.stream === 'stdout' ? !opts.stdout : !opts.stderr) continue;
            yield entry;
          }
          // a record conmon has not finished writing waits for the rest of it
          rest = Buffer.from(chunk.subarray(start));
        }
      }
      if (lastPass || waker === undefined) return;
      // A file that appeared, or replaced the one being read (rotation), is read from its start;
      // the old one was read to its end above.
      const now = await statIfExists(logPath);
      const current = fh === undefined ? undefined : await fh.stat();
      if (now !== undefined && (current === undefined || now.ino !== current.ino || now.dev !== current.dev)) {
        await fh?.close();
        fh = await openIfExists(logPath);
        pos = 0;
        rest = Buffer.alloc(0);
        continue;
      }
      if (current !== undefined && current.size < pos) {
        // truncated in place: what is there now is new
        pos = 0;
        rest = Buffer.alloc(0);
        continue;
      }
      await opts.onCaughtUp?.();
      await waker.wait();
    }
  } finally {
    waker?.close();
    await fh?.close();
  }
}

/** One record without its newline; undefined for a line that is not one (never written by conmon). */
export function parseLogLine(line: Buffer): LogEntry | undefined {
  const s1 = line.indexOf(0x20);
  if (s1 < 0) return undefined;
  const s2 = line.indexOf(0x20, s1 + 1);
  if (s2 < 0) return undefined;
  const streamName = line.toString('latin1', s1 + 1, s2);
  if (streamName !== 'stdout' && streamName !== 'stderr') return undefined;
  const tag = line[s2 + 1];
  const full = tag === 0x46; // F
  if (!full && tag !== 0x50) return undefined; // P
  if (s2 + 2 < line.length && line[s2 + 2] !== 0x20) return undefined;
  const timeNs = parseLogTime(line.toString('latin1', 0, s1));
  if (timeNs === undefined) return undefined;
  const text = line.subarray(Math.min(s2 + 3, line.length));
  const data = Buffer.allocUnsafe(text.length + (full ? 1 : 0));
  text.copy(data);
  if (full) data[text.length] = NEWLINE;
  return { stream: streamName, timeNs, time: formatLogTime(timeNs), data };
}

/** Nanoseconds since the epoch of an RFC 3339 time with an optional fraction and a zone. */
export function parseLogTime(text: string): bigint | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let seconds = BigInt(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000);
  if (zone !== 'Z') {
    const offsetMin = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6));
    seconds -= BigInt((zone[0] === '+' ? 1 : -1) * offsetMin * 60);
  }
  return seconds * NANOS_PER_SECOND + BigInt((frac ?? '').padEnd(9, '0'));
}

/** UTC with all nine fraction digits: dockerd's jsonmessage.RFC3339NanoFixed. */
export function formatLogTime(ns: bigint): string {
  let seconds = ns / NANOS_PER_SECOND;
  let frac = ns % NANOS_PER_SECOND;
  if (frac < 0n) {
    frac += NANOS_PER_SECOND;
    seconds -= 1n;
  }
  const iso = new Date(Number(seconds) * 1000).toISOString();
  return `${iso.slice(0, 19)}.${frac.toString().padStart(9, '0')}Z`;
}

/** Where reading the current file starts, and how many records of the tail it holds from there. */
async function startOffset(fh: FileHandle, opts: LogReadOptions): Promise<{ offset: number; records: number }> {
  const { size } = await fh.stat();
  if (opts.fromOffset !== undefined) return { offset: Math.min(opts.fromOffset, size), records: 0 };
  if (opts.tail === undefined) return { offset: 0, records: 0 };
  return tailOffset(fh, size, opts.tail);
}

/**
 * Where the last `records` whole records begin, read backwards in blocks: just after the
 * (records+1)th newline from the end, or the start of the file when it has fewer (and how many).
 */
async function tailOffset(fh: FileHandle, size: number, records: number): Promise<{ offset: number; records: number }> {
  const block = Buffer.allocUnsafe(BLOCK_BYTES);
  let newlines = 0;
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - BLOCK_BYTES);
    const { bytesRead } = await fh.read(block, 0, end - start, start);
    let i = bytesRead;
    while (i > 0) {
      const nl = block.lastIndexOf(NEWLINE, i - 1);
      if (nl < 0) break;
      if (++newlines === records + 1) return { offset: start + nl + 1, records };
      i = nl;
    }
    end = start;
  }
  return { offset: 0, records: newlines };
}

/**
 * The records of the rotated files, oldest first: all of them, or the last `wanted`; true when
 * one was past `until` (nothing later is read).
 */
async function* rotatedEntries(logPath: string, opts: LogReadOptions, wanted: number | undefined): AsyncGenerator<LogEntry, boolean> {
  const files = await rotatedFiles(logPath);
  let left = wanted;
  const chosen: Array<{ lines: Buffer[]; from: number }> = [];
  // newest first, until the tail is whole
  for (const file of [...files].reverse()) {
    if (left !== undefined && left <= 0) break;
    const lines = await recordsOf(file);
    const from = left === undefined ? 0 : Math.max(0, lines.length - left);
    if (left !== undefined) left -= lines.length - from;
    chosen.unshift({ lines, from });
  }
  for (const { lines, from } of chosen) {
    for (const line of lines.slice(from)) {
      const entry = parseLogLine(line);
      if (entry === undefined) continue;
      if (opts.untilNs !== undefined && entry.timeNs > opts.untilNs) return true;
      if (opts.sinceNs !== undefined && entry.timeNs < opts.sinceNs) continue;
      if (entry.stream === 'stdout' ? !opts.stdout : !opts.stderr) continue;
      yield entry;
    }
  }
  return false;
}

/** <log>.N and <log>.N.gz, oldest (highest N) first; a plain file wins over its compressed copy while both exist. */
async function rotatedFiles(logPath: string): Promise<string[]> {
  const base = path.basename(logPath);
  const names = await readdir(path.dirname(logPath)).catch(() => [] as string[]);
  const byIndex = new Map<number, string>();
  for (const name of names) {
    const m = /^\.(\d+)(\.gz)?$/.exec(name.slice(base.length));
    if (!name.startsWith(base) || m === null) continue;
    const n = Number(m[1]);
    if (m[2] === undefined || !byIndex.has(n)) byIndex.set(n, path.join(path.dirname(logPath), name));
  }
  return [...byIndex.entries()].sort(([a], [b]) => b - a).map(([, file]) => file);
}

/** A rotated file's records (lines without their newline). */
async function recordsOf(file: string): Promise<Buffer[]> {
  let data = await readFile(file).catch(() => Buffer.alloc(0));
  if (file.endsWith('.gz')) data = await promisify(gunzip)(data);
  const lines: Buffer[] = [];
  let start = 0;
  for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
    lines.push(data.subarray(start, nl));
    start = nl + 1;
  }
  return lines;
}

function passedUntil(untilNs: bigint | undefined): boolean {
  return untilNs !== undefined && BigInt(Date.now()) * 1_000_000n > untilNs;
}

/**
 * Where the log ends now; 0 before it exists. An attach takes it before stdin can reach the
 * process, so that output to what it sends comes after it, whenever the reader gets going.
 */
export async function logEndOffset(logPath: string): Promise<number> {
  try {
    return (await stat(logPath)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

async function openIfExists(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function statIfExists(file: string): Promise<{ ino: number; dev: number } | undefined> {
  try {
    return await stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Wakes the follower when the log may have changed: an inotify event in its directory, the poll,
 * the container's end or the abort. A wake while nobody waits is kept, so none is lost.
 */
class ChangeWaker {
  ended = false;
  private woken = false;
  private waiter: (() => void) | undefined;
  private readonly watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = (): void => this.wake();

  constructor(logPath: string, opts: LogReadOptions) {
    const name = path.basename(logPath);
    try {
      this.watcher = watch(path.dirname(logPath), { persistent: false }, (_event, file) => {
        if (file === null || file === name) this.wake();
      });
      // a watch that fails later (its directory removed) leaves the poll to carry on
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // no directory yet, or no inotify instances left: the poll alone
    }
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.signal = opts.signal;
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    const onEnded = (): void => {
      this.ended = true;
      this.wake();
    };
    opts.ended?.then(onEnded, onEnded);
  }

  get aborted(): boolean {
    return this.signal?.aborted ?? false;
  }

  wait(): Promise<void> {
    if (this.woken || this.aborted) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  close(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter();
    else this.woken = true;
  }
}
