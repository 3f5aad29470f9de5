// FROM (initializeStage, getFromImage): the stage starts from an earlier stage's image, from
// nothing (scratch), or from an image, pulled when it is not here (or always with pull=1). The
// name is expanded with the meta args only. The base image's ONBUILD triggers run now, in order,
// and are not passed on.
import { invalidParameter } from '../../../errors.js';
import { processWord } from '../../dockerfile/shell-lex.js';
import type { Stage } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { BuildSession } from '../build-session.js';

export async function initializeStage(s: BuildSession, state: DispatchState, stage: Stage): Promise<void> {
  s.cache.reset();
  const meta = [...state.buildArgs.metaValues()].map(([k, v]) => `${k}=${v}`);
  const platform = stage.platform === '' ? s.options.platform : processWord(stage.platform, meta, s.escapeToken);
  const name = processWord(stage.baseName, meta, s.escapeToken);
  if (name === '') throw invalidParameter(`base name (${stage.baseName}) should not be blank`);
  const fromStage = s.stageImage(name);
  let imageId = '';
  if (fromStage !== undefined) imageId = fromStage;
  else if (name !== 'scratch') {
    if (s.options.pull || s.images.find(name) === undefined) await s.images.pull(name, s.authFor(name), platform, s.output.progress, s.signal);
    imageId = s.images.get(name).id;
  }
  const config = imageId === '' ? null : s.images.get(imageId).config.config;
  state.beginStage(stage.name, imageId, config as never);
  const triggers = state.runConfig.OnBuild ?? [];
  if (triggers.length === 0) return;
  state.runConfig.OnBuild = null;
  // three writes, three records, as dockerd's Fprintf, Fprint and Fprintln
  await s.output.stdout(`# Executing ${triggers.length} build trigger`);
  if (triggers.length > 1) await s.output.stdout('s');
  await s.output.stdout('\n');
  for (const trigger of triggers) {
    state.updateRunConfig();
    await s.dispatch(state, s.parseTrigger(trigger));
  }
}
