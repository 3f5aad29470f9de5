// Crash-safe small files: write a temporary file beside the target, fsync it, rename it over the
// target, then fsync the directory so the rename itself survives a crash. A symlink at the target
// is refused. The writes and fsyncs run in libuv's thread pool: an fsync takes from a fraction of
// a millisecond to tens of them on a busy disk, and berthd's event loop must not wait for it. The
// rename, a metadata change of microseconds, is synchronous: the new content appears at a point
// of berthd's own order of events, never while another piece of code looks (the image store's
// garbage collection deletes a blob that appears in the store before its writer leased it).
// Writes to one file land in the order they were asked for.
import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { lstat, open, rm } from 'node:fs/promises';
import path from 'node:path';

/** the last write asked for each file, which the next one waits for */
const lastWrites = new Map<string, Promise<void>>();

/** Writes `data` to `file` crash-safely; resolves once it is durable. */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const write = (lastWrites.get(file) ?? Promise.resolve()).catch(() => undefined).then(() => writeNow(file, bytes, mode));
  lastWrites.set(file, write);
  const forget = () => {
    if (lastWrites.get(file) === write) lastWrites.delete(file);
  };
  write.then(forget, forget);
  return write;
}

/**
 * Removes a file written with writeFileAtomic, once its writes have landed; resolves once the
 * removal is durable. The unlink itself is synchronous (a page-cache operation, well under a
 * millisecond), so that a kill can't land between it and what the caller did just before (a
 * volume's folder removed, its record still there); only the directory's fsync waits in the pool.
 */
export async function removeFileDurably(file: string): Promise<void> {
  const pending = lastWrites.get(file);
  if (pending !== undefined) await pending.catch(() => undefined);
  rmSync(file, { force: true });
  await fsyncPath(path.dirname(file));
}

/**
 * Flushes a file (one written and closed, before it is renamed into place) or a directory (so that
 * the names made or removed in it survive a crash) to disk.
 */
export async function fsyncPath(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeNow(file: string, data: Uint8Array, mode: number): Promise<void> {
  await refuseSymlink(file);
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${randomBytes(6).toString('hex')}`);
  const handle = await open(tmp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    renameSync(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await fsyncPath(dir);
}

/** The temporary name writeFileAtomic gives a file's next content: `.<name>.tmp-<12 hex>`. */
const TEMPORARY = /^\..+\.tmp-[0-9a-f]{12}$/;

/**
 * Deletes the temporary files writes to `dir` left when the process ended between the temporary
 * file and its rename (a kill): at load, before anyone writes there. A missing folder has none.
 */
export function removeTemporaryFiles(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const name of names) if (TEMPORARY.test(name)) rmSync(path.join(dir, name), { force: true });
}

async function refuseSymlink(file: string): Promise<void> {
  try {
    if ((await lstat(file)).isSymbolicLink()) throw new Error(`refusing to write through the symlink ${file}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
