// LABEL (dispatchLabel): the labels set on the config.
import type { LabelCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchLabel(b: StepRunner, state: DispatchState, c: LabelCommand): Promise<void> {
  const labels = { ...(state.runConfig.Labels ?? {}) };
  let comment = 'LABEL';
  for (const { key, value } of c.pairs) {
    labels[key] = value;
    comment += ` ${key}=${value}`;
  }
  state.runConfig.Labels = labels;
  await b.commit(state, comment);
}
