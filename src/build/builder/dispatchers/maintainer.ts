// MAINTAINER (dispatchMaintainer): the author of the stage's next images.
import type { MaintainerCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchMaintainer(b: StepRunner, state: DispatchState, c: MaintainerCommand): Promise<void> {
  state.maintainer = c.maintainer;
  await b.commit(state, `MAINTAINER ${c.maintainer}`);
}
