// ARG (dispatchArg): declares a build argument in the stage, with its default.
import type { ArgCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchArg(b: StepRunner, state: DispatchState, c: ArgCommand): Promise<void> {
  const words: string[] = [];
  for (const { key, value } of c.args) {
    words.push(value === undefined ? key : `${key}=${value}`);
    state.buildArgs.addArg(key, value);
  }
  await b.commit(state, `ARG ${words.join(' ')}`);
}
