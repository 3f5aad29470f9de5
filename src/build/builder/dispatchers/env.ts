// ENV (dispatchEnv): each variable replaces the one of the same name or is added at the end.
import type { EnvCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchEnv(b: StepRunner, state: DispatchState, c: EnvCommand): Promise<void> {
  const env = [...(state.runConfig.Env ?? [])];
  let comment = 'ENV';
  for (const { key, value } of c.pairs) {
    const entry = `${key}=${value}`;
    comment += ` ${entry}`;
    const at = env.findIndex((e) => e.split('=', 1)[0] === key);
    if (at >= 0) env[at] = entry;
    else env.push(entry);
  }
  state.runConfig.Env = env;
  await b.commit(state, comment);
}
