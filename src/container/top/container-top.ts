// GET /containers/{id}/top: the host's ps, filtered to the container's processes (ps-output.ts).
import { runHostPs } from '../../runtime/host-ps.js';
import { DEFAULT_PS_ARGS, parsePsOutput, psPidsArg, splitPsArgs, validatePsArgs, type TopResult } from './ps-output.js';

/**
 * `containerPids` finds the container and lists its processes; it throws dockerd's errors for a
 * missing or stopped container, and is asked only once the arguments passed their check.
 */
export async function containerTop(psArgs: string, containerPids: () => Promise<number[]>): Promise<TopResult> {
  const argsText = psArgs === '' ? DEFAULT_PS_ARGS : psArgs;
  validatePsArgs(argsText);
  const pids = await containerPids();
  const args = splitPsArgs(argsText);
  // some options (f, for one) can't go with -q: dockerd tries once more without it
  const stdout = await runHostPs([...args, psPidsArg(pids)]).catch(() => runHostPs(args));
  return parsePsOutput(stdout, pids);
}
