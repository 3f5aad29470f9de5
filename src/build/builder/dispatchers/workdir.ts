// WORKDIR (dispatchWorkdir): relative to the one before; the directory is made now, in a step
// container's root filesystem (owned by root, 0755, as dockerd's ContainerCreateWorkdir), so the
// next image has it. The comment is one word after the shell (withCmdCommentString).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { WorkdirCommand } from '../../dockerfile/instructions.js';
import { EngineError } from '../../../errors.js';
import { followSymlinkInScope } from '../../context/scoped-path.js';
import type { DispatchState } from '../dispatch-state.js';
import type { StepRunner } from '../step-runner.js';

export async function dispatchWorkdir(b: StepRunner, state: DispatchState, c: WorkdirCommand): Promise<void> {
  const dir = path.posix.resolve('/', state.runConfig.WorkingDir ?? '/', c.path);
  state.runConfig.WorkingDir = dir;
  const config = { ...structuredClone(state.runConfig), Cmd: [...state.shell(), `#(nop) WORKDIR ${dir}`] };
  if (await b.probeCache(state, config)) return;
  const id = await b.create(state, config);
  await b.containers.withRootfs(id, async (root) => {
    const inRoot = followSymlinkInScope(root, dir);
    if (inRoot === undefined) throw new EngineError('system', `failed to create the working directory ${dir}: not a directory`);
    await mkdir(path.join(root, inRoot), { recursive: true, mode: 0o755 });
  });
  await b.commitContainer(state, id, config);
}
