// The end of a process conmon watches (a container's run, or a terminal exec): conmon's exit file,
// or conmon gone without writing one (killed), which is noticed by checking it every 2 s.
import { isConmonAlive } from './conmon.js';
import { readExitFile, waitForExitFile, type ExitFileLocation, type ExitRecord } from './exit-files.js';

/** How often conmon is checked for having died without an exit file. */
const CONMON_CHECK_INTERVAL_MS = 2000;

/** conmon ended without recording an exit: the run is over, its code unknown. */
export interface LostRun {
  lost: true;
  finishedAtNs: bigint;
}

/** Resolves with conmon's exit record, or LostRun once conmon is gone without one; stops watching when `signal` fires. */
export async function watchConmonExit(loc: ExitFileLocation, conmonPid: number, signal?: AbortSignal): Promise<ExitRecord | LostRun> {
  const watch = new AbortController();
  const stop = (): void => watch.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  const conmonGone = new Promise<LostRun | undefined>((resolve) => {
    const timer = setInterval(() => {
      void isConmonAlive(conmonPid, loc.containerId).then(async (alive) => {
        if (alive || watch.signal.aborted) return;
        clearInterval(timer);
        // conmon writes the exit file just before it ends: look once more
        resolve((await readExitFile(loc)) === undefined ? { lost: true, finishedAtNs: BigInt(Date.now()) * 1_000_000n } : undefined);
      });
    }, CONMON_CHECK_INTERVAL_MS);
    timer.unref();
    watch.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
  });
  try {
    const lost = conmonGone.then((l) => l ?? new Promise<never>(() => {}));
    return await Promise.race([waitForExitFile(loc, { signal: watch.signal }), lost]);
  } finally {
    signal?.removeEventListener('abort', stop);
    watch.abort();
  }
}
