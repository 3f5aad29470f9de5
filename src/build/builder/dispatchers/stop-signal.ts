// STOPSIGNAL (dispatchStopSignal): checked as dockerd parses signals.
import { parseSignal } from '../../../container/config/stop-signal.js';
import type { StopSignalCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchStopSignal(b: StepRunner, state: DispatchState, c: StopSignalCommand): Promise<void> {
  parseSignal(c.signal);
  state.runConfig.StopSignal = c.signal;
  await b.commit(state, `STOPSIGNAL ${c.signal}`);
}
