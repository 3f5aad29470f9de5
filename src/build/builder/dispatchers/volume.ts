// VOLUME (dispatchVolume): the paths become the image's volumes; the comment is Go's %v of the list.
import { invalidParameter } from '../../../errors.js';
import type { VolumeCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchVolume(b: StepRunner, state: DispatchState, c: VolumeCommand): Promise<void> {
  const volumes = { ...(state.runConfig.Volumes ?? {}) };
  for (const v of c.volumes) {
    if (v === '') throw invalidParameter('VOLUME specified can not be an empty string');
    volumes[v] = {};
  }
  state.runConfig.Volumes = volumes;
  await b.commit(state, `VOLUME [${c.volumes.join(' ')}]`);
}
