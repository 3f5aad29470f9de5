// GET /containers/{id}/top: the host's ps, filtered to the container's processes (ps-output.ts).
import { EngineError } from '../../errors.js';
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
  let r = await runHostPs([...args, psPidsArg(pids)]);
  // some options (f, for one) can't go with -q: dockerd tries once more without it
  if (r.code !== 0) r = await runHostPs(args);
  if (r.code !== 0) {
    const firstLine = r.stderr.split('\n')[0];
    throw new EngineError('system', `ps: ${firstLine || r.error || `exit status ${r.code}`}`);
  }
  return parsePsOutput(r.stdout, pids);
}
