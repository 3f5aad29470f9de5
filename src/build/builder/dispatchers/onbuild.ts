// ONBUILD (dispatchOnbuild): the trigger is kept in the config, for builds FROM this image.
import type { OnbuildCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchOnbuild(b: StepRunner, state: DispatchState, c: OnbuildCommand): Promise<void> {
  state.runConfig.OnBuild = [...(state.runConfig.OnBuild ?? []), c.expression];
  await b.commit(state, `ONBUILD ${c.expression}`);
}
