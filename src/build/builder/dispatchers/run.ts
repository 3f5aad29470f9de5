// RUN (moby v20.10 dispatchers.go dispatchRun): the command in a container of the image so far,
// its output in the build's stream, its changes the next image. The stage's build args are in its
// environment; those that matter to the cache go in front of the Cmd the cache knows the step by
// ("|2 A=1 B=2 /bin/sh -c ..."), so a changed value makes a new step. A command that fails fails
// the build with its exit code.
import { EngineError } from '../../../errors.js';
import type { RunCommand } from '../../dockerfile/instructions.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

/** A RUN that failed; dockerd's jsonmessage error carries its exit code as `code`. */
export class RunFailedError extends EngineError {
  constructor(message: string, code: number) {
    super('system', message);
    this.progressCode = code;
  }
}

const MOUNT_NEEDS_BUILDKIT = 'the --mount option requires BuildKit. Refer to https://docs.docker.com/go/buildkit/ to learn how to build images with BuildKit enabled';

export async function dispatchRun(b: StepRunner, state: DispatchState, c: RunCommand): Promise<void> {
  if (c.flagsUsed.includes('mount')) throw new EngineError('system', MOUNT_NEEDS_BUILDKIT);
  const cmd = c.prependShell ? [...state.shell(), ...c.cmdLine] : [...c.cmdLine];
  const buildArgs = state.buildArgs.filterAllowed(state.runConfig.Env ?? []);
  const saveCmd = buildArgs.length > 0 ? withBuildArgs(state, buildArgs, cmd) : cmd;
  const probeConfig = { ...structuredClone(state.runConfig), Cmd: saveCmd, ArgsEscaped: false, ...(saveCmd.length > 0 ? { Entrypoint: null } : {}) };
  if (await b.probeCache(state, probeConfig)) return;

  const runConfig = {
    ...structuredClone(state.runConfig),
    Cmd: cmd,
    ArgsEscaped: false,
    Env: [...(state.runConfig.Env ?? []), ...buildArgs],
    // the step runs its Cmd alone: the image's ENTRYPOINT is not in front of it
    ...(saveCmd.length > 0 ? { Entrypoint: [''] } : {}),
    Healthcheck: undefined,
  };
  delete runConfig.Healthcheck;
  const id = await b.create(state, runConfig);
  const code = await b.containers.run(id, b.output.frames, b.signal);
  if (b.signal.aborted) {
    await b.discard(id);
    throw new EngineError('system', 'Build cancelled');
  }
  if (code !== 0) throw new RunFailedError(`The command '${cmd.join(' ')}' returned a non-zero code: ${code}`, code);
  await b.commitContainer(state, id, probeConfig);
}

/** prependEnvOnCmd: the args the cache must see, sorted, counted in front of the command. */
function withBuildArgs(state: DispatchState, buildArgs: string[], cmd: string[]): string[] {
  const kept = buildArgs.filter((kv) => state.buildArgs.isReferencedOrNotBuiltin(kv.split('=', 1)[0])).sort();
  return [`|${kept.length}`, ...kept, ...cmd];
}
