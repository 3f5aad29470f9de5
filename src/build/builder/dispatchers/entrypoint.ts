// ENTRYPOINT (dispatchEntrypoint): a CMD inherited from the base image goes (one this stage set stays).
import type { EntrypointCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';
import { goQuoteList } from './cmd.js';

export async function dispatchEntrypoint(b: StepRunner, state: DispatchState, c: EntrypointCommand): Promise<void> {
  // ENTRYPOINT [] (or none) is stored as null, as dockerd
  const entrypoint = c.cmdLine === null ? null : c.prependShell ? [...state.shell(), ...c.cmdLine] : [...c.cmdLine];
  state.runConfig.Entrypoint = entrypoint;
  state.runConfig.ArgsEscaped = false;
  if (!state.cmdSet) state.runConfig.Cmd = null;
  await b.commit(state, `ENTRYPOINT ${goQuoteList(entrypoint ?? [])}`);
}
