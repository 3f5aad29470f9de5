// One instruction dispatched (moby v20.10 builder/dockerfile/evaluator.go dispatch): the words of
// the instructions that take variables are expanded first, with the config's Env and the stage's
// build args it does not set (so `ENV a=1 b=$a` sees the a from before this line), then the
// instruction's own dispatcher runs.
import { invalidParameter } from '../../errors.js';
import type { Command } from '../dockerfile/instructions.js';
import { processWord } from '../dockerfile/shell-lex.js';
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
  const c = expandWords(command, s, state);
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
      return dispatchExpose(b, state, c);
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

/** The instruction with its words expanded, for those buildkit's instructions expand (SupportsSingleWordExpansion). */
function expandWords(c: Command, s: BuildSession, state: DispatchState): Command {
  const env = state.expansionEnv();
  const word = (w: string) => {
    try {
      return processWord(w, env, s.escapeToken);
    } catch (err) {
      throw invalidParameter((err as Error).message);
    }
  };
  switch (c.kind) {
    case 'env':
      return { ...c, pairs: c.pairs.map(({ key, value }) => ({ key: word(key), value: word(value) })) };
    case 'label':
      return c.noExpand ? c : { ...c, pairs: c.pairs.map(({ key, value }) => ({ key: word(key), value: word(value) })) };
    case 'add':
    case 'copy':
      return { ...c, sources: c.sources.map(word), dest: word(c.dest), chown: word(c.chown) };
    case 'workdir':
      return { ...c, path: word(c.path) };
    case 'expose':
      return { ...c, ports: c.ports.map(word) };
    case 'user':
      return { ...c, user: word(c.user) };
    case 'volume':
      return { ...c, volumes: c.volumes.map(word) };
    case 'stopsignal':
      return { ...c, signal: word(c.signal) };
    case 'arg':
      return { ...c, args: c.args.map(({ key, value }) => ({ key: word(key), value: value === undefined ? undefined : word(value) })) };
    default:
      return c;
  }
}
