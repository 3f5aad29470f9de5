// One instruction dispatched (moby v20.10 builder/dockerfile/evaluator.go dispatch): the words of
// the instructions that take variables are expanded first (expand-command.ts), with the config's
// Env and the stage's build args it does not set (so `ENV a=1 b=$a` sees the a from before this
// line), then the instruction's own dispatcher runs.
import { expandCommand } from '../dockerfile/expand-command.js';
import type { Command } from '../dockerfile/instructions.js';
import { processWord, processWords } from '../dockerfile/shell-lex.js';
import type { BuildSession } from './build-session.js';
import type { DispatchState } from './dispatch-state.js';
import { dispatchArg } from './dispatchers/arg.js';
import { dispatchCmd } from './dispatchers/cmd.js';
import { dispatchCopy } from './dispatchers/copy.js';
import { dispatchEntrypoint } from './dispatchers/entrypoint.js';
import { dispatchEnv } from './dispatchers/env.js';
import { dispatchExpose } from './dispatchers/expose.js';
import { dispatchHealthcheck } from './dispatchers/healthcheck.js';
import { dispatchLabel } from './dispatchers/label.js';
import { dispatchMaintainer } from './dispatchers/maintainer.js';
import { dispatchOnbuild } from './dispatchers/onbuild.js';
import { dispatchRun } from './dispatchers/run.js';
import { dispatchShell } from './dispatchers/shell.js';
import { dispatchStopSignal } from './dispatchers/stop-signal.js';
import { dispatchUser } from './dispatchers/user.js';
import { dispatchVolume } from './dispatchers/volume.js';
import { dispatchWorkdir } from './dispatchers/workdir.js';

export async function dispatchCommand(s: BuildSession, state: DispatchState, command: Command): Promise<void> {
  const env = state.expansionEnv();
  const c = command.kind === 'label' && command.noExpand ? command : expandCommand(command, (word) => processWord(word, env, s.escapeToken));
  const b = s.steps;
  switch (c.kind) {
    case 'env':
      return dispatchEnv(b, state, c);
    case 'label':
      return dispatchLabel(b, state, c);
    case 'maintainer':
      return dispatchMaintainer(b, state, c);
    case 'add':
    case 'copy':
      return dispatchCopy(s, state, c);
    case 'onbuild':
      return dispatchOnbuild(b, state, c);
    case 'workdir':
      return dispatchWorkdir(b, state, c);
    case 'run':
      return dispatchRun(b, state, c);
    case 'cmd':
      return dispatchCmd(b, state, c);
    case 'entrypoint':
      return dispatchEntrypoint(b, state, c);
    case 'expose':
      // the one instruction whose word may become several (EXPOSE $PORTS)
      return dispatchExpose(b, state, { ...c, ports: c.ports.flatMap((p) => processWords(p, env, s.escapeToken)) });
    case 'user':
      return dispatchUser(b, state, c);
    case 'volume':
      return dispatchVolume(b, state, c);
    case 'stopsignal':
      return dispatchStopSignal(b, state, c);
    case 'arg':
      return dispatchArg(b, state, c);
    case 'shell':
      return dispatchShell(b, state, c);
    case 'healthcheck':
      return dispatchHealthcheck(b, state, c);
  }
}
