// USER (dispatchUser).
import type { UserCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchUser(b: StepRunner, state: DispatchState, c: UserCommand): Promise<void> {
  state.runConfig.User = c.user;
  await b.commit(state, `USER ${c.user}`);
}
