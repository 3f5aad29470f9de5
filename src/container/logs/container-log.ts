// Reads a container's log, in its driver's format (log-codecs.ts), for `docker logs` and attach.
// Each entry is one message: `docker logs` prints them back to back, each with its own time under
// timestamps=1, and tail counts them all, of both streams, before since, until and the stream
// choice filter (dockerd 20.10 does the same).
//
// With a rotating driver, the entries before the current file's are in <log>.1 (<log>.1.gz
// compressed) and older ones in .2, .3...: they are read first, oldest first, and tail counts
// across them.
//
// Following watches the log's directory (which also sees the file appear, or be replaced when it
// rotates) with a poll as a fallback, and stops once the container's run has ended and the rest of
// the file is read: the run's end is told only after its output is all in the log.
import { watch, type FSWatcher } from 'node:fs';
import { open, readdir, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { LogCodec, LogEntry } from './log-codecs.js';

export type { LogEntry } from './log-codecs.js';

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

export async function* readContainerLog(logPath: string, codec: LogCodec, opts: LogReadOptions): AsyncGenerator<LogEntry> {
  const waker = opts.follow ? new ChangeWaker(logPath, opts) : undefined;
  let fh: FileHandle | undefined;
  try {
    fh = await openIfExists(logPath);
    const start = fh === undefined ? { offset: 0, entries: 0 } : await startOffset(fh, codec, opts);
    let pos = start.offset;
    // the rotated files, unless only new output is wanted or the current file holds the whole tail
    if (opts.fromOffset === undefined && (opts.tail === undefined || start.entries < opts.tail)) {
      const stopped = yield* rotatedEntries(logPath, codec, opts, opts.tail === undefined ? undefined : opts.tail - start.entries);
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
          const decoded: LogEntry[] = [];
          const used = codec.decode(chunk, (entry) => decoded.push(entry));
          for (const entry of decoded) {
            if (opts.untilNs !== undefined && entry.timeNs > opts.untilNs) return;
            if (wanted(entry, opts)) yield entry;
          }
          // an entry not yet written whole waits for the rest of it
          rest = Buffer.from(chunk.subarray(used));
        }
      }
      if (lastPass || waker === undefined) return;
      // A file that appeared, or replaced the one being read (rotation), is read from its start;
      // the old one was read to its end above.
      const now = await statIfExists(logPath);
      const current = fh === undefined ? undefined : await fh.stat();
      if (now !== undefined && (current === undefined || now.ino !== current.ino || now.dev !== current.dev)) {
        await fh?.close();
        // a follower more than one rotation behind reads the files rotated since the one it read
        if (current !== undefined) {
          for (const file of await rotatedSince(logPath, current.ino)) {
            for (const entry of await entriesOf(file, codec)) {
              if (opts.untilNs !== undefined && entry.timeNs > opts.untilNs) return;
              if (wanted(entry, opts)) yield entry;
            }
          }
        }
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

/** Where reading the current file starts, and how many entries of the tail it holds from there. */
async function startOffset(fh: FileHandle, codec: LogCodec, opts: LogReadOptions): Promise<{ offset: number; entries: number }> {
  const { size } = await fh.stat();
  if (opts.fromOffset !== undefined) return { offset: Math.min(opts.fromOffset, size), entries: 0 };
  if (opts.tail === undefined) return { offset: 0, entries: 0 };
  return codec.tailOffset(fh, size, opts.tail);
}

function wanted(entry: LogEntry, opts: LogReadOptions): boolean {
  if (opts.sinceNs !== undefined && entry.timeNs < opts.sinceNs) return false;
  return entry.stream === 'stdout' ? opts.stdout : opts.stderr;
}

/**
 * The entries of the rotated files, oldest first: all of them, or the last `wanted`; true when
 * one was past `until` (nothing later is read).
 */
async function* rotatedEntries(logPath: string, codec: LogCodec, opts: LogReadOptions, tail: number | undefined): AsyncGenerator<LogEntry, boolean> {
  const files = await rotatedFiles(logPath);
  let left = tail;
  const chosen: LogEntry[][] = [];
  // newest first, until the tail is whole
  for (const file of [...files].reverse()) {
    if (left !== undefined && left <= 0) break;
    const entries = await entriesOf(file, codec);
    const from = left === undefined ? 0 : Math.max(0, entries.length - left);
    if (left !== undefined) left -= entries.length - from;
    chosen.unshift(entries.slice(from));
  }
  for (const entries of chosen) {
    for (const entry of entries) {
      if (opts.untilNs !== undefined && entry.timeNs > opts.untilNs) return true;
      if (wanted(entry, opts)) yield entry;
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

/**
 * The rotated files newer than the one with this inode, oldest first; none when it is the newest
 * rotated file, or is no longer to be found (compressed, or dropped: what it rotated into is lost).
 */
async function rotatedSince(logPath: string, ino: number): Promise<string[]> {
  const files = await rotatedFiles(logPath);
  for (const [i, file] of files.entries()) {
    if (file.endsWith('.gz')) continue;
    if ((await statIfExists(file))?.ino === ino) return files.slice(i + 1);
  }
  return [];
}

/** A rotated file's entries. */
async function entriesOf(file: string, codec: LogCodec): Promise<LogEntry[]> {
  let data = await readFile(file).catch(() => Buffer.alloc(0));
  if (file.endsWith('.gz')) data = await promisify(gunzip)(data).catch(() => Buffer.alloc(0));
  const entries: LogEntry[] = [];
  codec.decode(data, (entry) => entries.push(entry));
  return entries;
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
