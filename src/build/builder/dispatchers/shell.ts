// SHELL (dispatchShell): the shell later shell-form commands run in; the comment is Go's %v.
import type { ShellCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchShell(b: StepRunner, state: DispatchState, c: ShellCommand): Promise<void> {
  state.runConfig.Shell = [...c.shell];
  await b.commit(state, `SHELL [${c.shell.join(' ')}]`);
}
