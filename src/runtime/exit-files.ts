// The exit files conmon writes when a container's process ends: the fact that outlives berthd.
//
// conmon (2.1.x) writes, after it has drained the container's output into the log and synced it:
//   <persist-dir>/exit      the exit code, first
//   <exit-dir>/<cid>        the same code, second; one directory for all containers, so one watch
//                           sees every exit
// Each is written with g_file_set_contents: a temporary `<name>.XXXXXX` beside it, then a rename, so
// a reader never sees half a file. The code is the process's status (0–255), or 128 + the signal
// that killed it (137 for SIGKILL, 143 for SIGTERM). The file's mtime is the container's finish time.
// When the kernel's OOM killer hit the container's cgroup, conmon also creates an empty
// <persist-dir>/oom (and `oom` in the bundle). A conmon that was itself killed writes nothing: the
// caller must also watch conmon's pid.
import { watch } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** Where conmon records one container's exit (the --exit-dir, --cid and --persist-dir it was given). */
export interface ExitFileLocation {
  exitDir: string;
  containerId: string;
  /** The per-container --persist-dir; its `exit` is a second copy and its `oom` marks an OOM kill. */
  persistDir?: string;
}

export interface ExitRecord {
  exitCode: number;
  /** The exit file's mtime, in nanoseconds since the epoch: the container's finish time. */
  finishedAtNs: bigint;
  /** conmon saw an OOM event in the container's cgroup. */
  oomKilled: boolean;
}

export function exitFilePath(loc: ExitFileLocation): string {
  return path.join(loc.exitDir, loc.containerId);
}

export function persistExitFilePath(persistDir: string): string {
  return path.join(persistDir, 'exit');
}

export function oomFilePath(persistDir: string): string {
  return path.join(persistDir, 'oom');
}

/** The recorded exit, or undefined while the container has not exited (or conmon died first). */
export async function readExitFile(loc: ExitFileLocation): Promise<ExitRecord | undefined> {
  const candidates = [exitFilePath(loc)];
  if (loc.persistDir !== undefined) candidates.push(persistExitFilePath(loc.persistDir));
  for (const file of candidates) {
    const record = await readOne(file);
    if (record === undefined) continue;
    const oomKilled = loc.persistDir !== undefined && (await exists(oomFilePath(loc.persistDir)));
    return { ...record, oomKilled };
  }
  return undefined;
}

async function readOne(file: string): Promise<{ exitCode: number; finishedAtNs: bigint } | undefined> {
  let text: string;
  let mtimeNs: bigint;
  try {
    // stat first: a rewrite between the two calls can only make the time later, never the code older
    mtimeNs = (await stat(file, { bigint: true })).mtimeNs;
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const trimmed = text.trim();
  if (!/^-?\d+$/.test(trimmed)) throw new Error(`exit file ${file} holds ${JSON.stringify(text)}, not an exit code`);
  return { exitCode: Number(trimmed), finishedAtNs: mtimeNs };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

export class ExitWaitTimeoutError extends Error {
  constructor(file: string, timeoutMs: number) {
    super(`no exit file ${file} after ${timeoutMs} ms`);
    this.name = 'ExitWaitTimeoutError';
  }
}

export interface WaitOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Resolves with the exit record once conmon has written it. The directory watch is armed before
 * the first look, so an exit file written at any moment is seen: either by the look or by an event.
 * Rejects with the signal's reason when aborted, or ExitWaitTimeoutError after timeoutMs.
 */
export function waitForExitFile(loc: ExitFileLocation, opts: WaitOptions = {}): Promise<ExitRecord> {
  const { signal, timeoutMs } = opts;
  return new Promise<ExitRecord>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let settled = false;
    let checking = false;
    let recheck = false;
    const watcher = watch(loc.exitDir, { persistent: true });
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => finish(new ExitWaitTimeoutError(exitFilePath(loc), timeoutMs)), timeoutMs);
    const onAbort = (): void => finish(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });

    function finish(err: unknown, record?: ExitRecord): void {
      if (settled) return;
      settled = true;
      watcher.close();
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (record !== undefined) resolve(record);
      else reject(err);
    }

    // one look at a time; an event during a look asks for one more
    async function check(): Promise<void> {
      if (checking) {
        recheck = true;
        return;
      }
      checking = true;
      try {
        do {
          recheck = false;
          const record = await readExitFile(loc);
          if (record !== undefined) {
            finish(undefined, record);
            return;
          }
        } while (recheck && !settled);
      } catch (err) {
        finish(err);
      } finally {
        checking = false;
      }
    }

    watcher.on('change', (_event, filename) => {
      // the final rename names the container; a null name means the kernel didn't say
      if (filename === null || filename.toString() === loc.containerId) void check();
    });
    watcher.on('error', (err) => finish(err));
    void check();
  });
}

/** Removes the exit files (before a restart of the same container, or when it is deleted). */
export async function removeExitFiles(loc: ExitFileLocation): Promise<void> {
  await rm(exitFilePath(loc), { force: true });
  if (loc.persistDir !== undefined) {
    await rm(persistExitFilePath(loc.persistDir), { force: true });
    await rm(oomFilePath(loc.persistDir), { force: true });
  }
}
