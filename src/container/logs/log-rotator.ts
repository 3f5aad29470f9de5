// A running container's log rotated as dockerd's json-file and local drivers rotate theirs: when the
// file conmon writes reaches max-size it is renamed <log>.1 (older ones shifted to .2 ... up to
// max-file - 1, the oldest dropped; compressed to .N.gz with compress), and conmon is told through
// its ctl fifo to open a new one. What conmon writes between the rename and its reopen goes to the
// renamed file, so no line is lost or written twice. The file is watched through inotify, so a chatty
// container's log is rotated as soon as it passes the size; the poll is there for when a watch fails.
// While berthd is down nothing rotates: conmon's own --log-size-max is no help, since it counts every
// byte since conmon started and, once past it, empties the current file (lines lost). The first
// check after berthd is back rotates a file that grew meanwhile.
import { watch, type FSWatcher } from 'node:fs';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Logger } from 'pino';
import type { LogRotation } from './log-options.js';

const POLL_MS = 1000;
/**
 * A rotation starts this much before max-size (a tenth of it, at most 1 MiB): conmon goes on writing
 * to the renamed file until it has reopened, so the files end near max-size rather than past it.
 */
const HEADROOM_FRACTION = 0.1;
const HEADROOM_MAX_BYTES = 1024 * 1024;
/** how long a rotation waits for conmon to open the new file before it takes the old one as done */
const REOPEN_WAIT_MS = 2000;

export class LogRotator {
  private watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private busy = false;
  private again = false;
  private stopped = false;
  private afterBusy: (() => void) | undefined;

  constructor(
    private readonly logPath: string,
    private readonly rotation: LogRotation,
    /** tells conmon to open a new file at logPath */
    private readonly reopen: () => Promise<void>,
    private readonly log: Logger,
  ) {
    const name = path.basename(logPath);
    try {
      this.watcher = watch(path.dirname(logPath), { persistent: false }, (_event, file) => {
        if (file === null || file === name) this.check();
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // no inotify instance left: the poll alone
    }
    this.timer = setInterval(() => this.check(), POLL_MS).unref();
    this.check();
  }

  /** No more checks (berthd stops; the run goes on under conmon). */
  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.timer);
  }

  /**
   * The run ended: what it wrote faster than the checks came (a short burst) is split into files of
   * max-size at line ends, as rotating while it wrote would have left it.
   */
  async finish(): Promise<void> {
    this.stop();
    if (this.busy) await new Promise<void>((resolve) => (this.afterBusy = resolve));
    await this.settle().catch((err: unknown) => this.log.warn({ err, logPath: this.logPath }, 'rotating a container log failed'));
  }

  /** One check at a time; a change during it makes another afterwards. */
  private check(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.rotateIfFull()
      .catch((err: unknown) => this.log.warn({ err, logPath: this.logPath }, 'rotating a container log failed'))
      .finally(() => {
        this.busy = false;
        this.afterBusy?.();
        if (this.again) {
          this.again = false;
          this.check();
        }
      });
  }

  private async rotateIfFull(): Promise<void> {
    const size = (await stat(this.logPath).catch(() => undefined))?.size ?? 0;
    const { maxSizeBytes, maxFiles, compress } = this.rotation;
    if (size < maxSizeBytes - Math.min(maxSizeBytes * HEADROOM_FRACTION, HEADROOM_MAX_BYTES)) return;
    const rotated = (i: number) => `${this.logPath}.${i}`;
    // the file is moved aside and conmon told first, the older ones shifted while conmon writes its
    // new file: a shift first would let the file grow past max-size meanwhile
    const aside = `${this.logPath}.rotating`;
    const before = await stat(this.logPath);
    await rename(this.logPath, aside);
    // a conmon that has gone (the run just ended) reopens nothing: the file goes back, for the
    // run's end to split it
    const reopened = await this.reopen().then(
      () => true,
      () => false,
    );
    if (!reopened) {
      await rename(aside, this.logPath);
      return;
    }
    // the oldest kept goes; the others move up one
    await removeBoth(rotated(maxFiles - 1));
    for (let i = maxFiles - 2; i >= 1; i--) {
      await renameIfExists(rotated(i), rotated(i + 1));
      await renameIfExists(`${rotated(i)}.gz`, `${rotated(i + 1)}.gz`);
    }
    await rename(aside, rotated(1));
    await this.conmonReopened(before.ino);
    if (maxFiles === 1) await rm(rotated(1), { force: true });
    else if (compress) await gzipFile(rotated(1));
  }

  /** Splits the log (nobody writes it any more) into files of at most max-size, the newest kept. */
  private async settle(): Promise<void> {
    const { maxSizeBytes, maxFiles, compress } = this.rotation;
    // a reopen that conmon took as it exited but never carried out left no current file: the
    // newest rotated one is the run's last
    if ((await stat(this.logPath).catch(() => undefined)) === undefined) await renameIfExists(`${this.logPath}.1`, this.logPath);
    const size = (await stat(this.logPath).catch(() => undefined))?.size ?? 0;
    if (size <= maxSizeBytes) return;
    const data = await readFile(this.logPath);
    const chunks = splitAtLineEnds(data, maxSizeBytes).slice(-maxFiles);
    const older = chunks.slice(0, -1);
    const rotated = (i: number) => `${this.logPath}.${i}`;
    // the files already rotated move up past the new ones; those beyond max-file go
    for (let i = maxFiles - 1; i >= 1; i--) {
      const to = i + older.length;
      if (to > maxFiles - 1) await removeBoth(rotated(i));
      else {
        await renameIfExists(rotated(i), rotated(to));
        await renameIfExists(`${rotated(i)}.gz`, `${rotated(to)}.gz`);
      }
    }
    for (const [k, chunk] of older.entries()) {
      const file = rotated(older.length - k);
      await writeFile(file, chunk, { mode: 0o600 });
      if (compress) await gzipFile(file);
    }
    await writeFile(`${this.logPath}.tmp`, chunks.at(-1) as Buffer, { mode: 0o600 });
    await rename(`${this.logPath}.tmp`, this.logPath);
  }

  /** Until conmon has made its new file (and so closed the old one), or the wait is over. */
  private async conmonReopened(oldIno: number): Promise<void> {
    const deadline = Date.now() + REOPEN_WAIT_MS;
    while (Date.now() < deadline) {
      const now = await stat(this.logPath).catch(() => undefined);
      if (now !== undefined && now.ino !== oldIno) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** The data in pieces of at most `size` bytes that end at a line's end (a longer line is a piece of its own). */
function splitAtLineEnds(data: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  while (start < data.length) {
    let end = data.lastIndexOf(0x0a, Math.min(start + size, data.length) - 1) + 1;
    if (end <= start) end = data.indexOf(0x0a, start) + 1 || data.length;
    pieces.push(data.subarray(start, end));
    start = end;
  }
  return pieces;
}

async function renameIfExists(from: string, to: string): Promise<void> {
  await rename(from, to).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

async function removeBoth(file: string): Promise<void> {
  await rm(file, { force: true });
  await rm(`${file}.gz`, { force: true });
}

/** file → file.gz, written aside and renamed, then the plain one removed (a reader prefers the plain one while both exist). */
async function gzipFile(file: string): Promise<void> {
  const tmp = `${file}.gz.tmp`;
  await pipeline(createReadStream(file), createGzip(), createWriteStream(tmp, { mode: 0o600 }));
  await rename(tmp, `${file}.gz`);
  await rm(file, { force: true });
}
