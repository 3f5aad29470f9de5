// Waiting in tests for something the daemon does in its own time, with a limit (never a timed assertion).

/** Polls get() until ok() holds for its value; fails with the last value after timeoutMs. */
export async function until<T>(what: string, get: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls probe() until it gives a value. */
export async function untilDefined<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  return (await until(what, probe, (v) => v !== undefined, timeoutMs)) as T;
}
