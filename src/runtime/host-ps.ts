// The host's ps(1), run for `docker top` with the caller's arguments (no shell).
import { runCommand } from './child-process.js';

/** How long ps may take before it is killed. */
const PS_TIMEOUT_MS = 10_000;

/** ps's output; a CommandError (`ps: ` and the first line of its stderr, as dockerd words it) when it fails. */
export async function runHostPs(args: string[]): Promise<string> {
  const r = await runCommand('ps', args, { timeoutMs: PS_TIMEOUT_MS });
  return r.stdout.toString();
}
