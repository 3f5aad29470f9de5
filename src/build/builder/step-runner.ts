// The steps' common moves, as moby v20.10's builder/dockerfile/internals.go makes them: probe the
// cache (" ---> Using cache"), make a step's container (" ---> Running in ..."), commit a
// metadata step (a container that never runs, its Cmd the step's "#(nop)" comment), commit a
// container's changes as the stage's next image, and remove the step's containers afterwards
// ("Removing intermediate container ..."), after every step with rm, even a failed one with forcerm.
import type { ContainerConfig, HostConfig } from '../../container/config/types.js';
import type { BuildContainers } from '../build-ports.js';
import type { BuildOutput } from './build-output.js';
import type { DispatchState } from './dispatch-state.js';
import type { ImageCache } from './image-cache.js';

export interface StepRunnerOptions {
  containers: BuildContainers;
  cache: ImageCache;
  output: BuildOutput;
  hostConfig: HostConfig;
  remove: boolean;
  forceRemove: boolean;
  signal: AbortSignal;
}

export class StepRunner {
  private readonly made: string[] = [];

  constructor(private readonly opts: StepRunnerOptions) {}

  get output(): BuildOutput {
    return this.opts.output;
  }

  get containers(): BuildContainers {
    return this.opts.containers;
  }

  get signal(): AbortSignal {
    return this.opts.signal;
  }

  /** Takes the cached image for this step if there is one: whether it did. */
  async probeCache(state: DispatchState, config: ContainerConfig): Promise<boolean> {
    const cached = this.opts.cache.probe(state.imageId, config);
    if (cached === undefined) return false;
    await this.output.stdout(' ---> Using cache\n');
    state.imageId = cached;
    return true;
  }

  /** A step's container of the stage's image so far, to be removed after the step. */
  async create(state: DispatchState, config: ContainerConfig): Promise<string> {
    const { id, warnings } = await this.containers.create(state.imageId, config, this.opts.hostConfig);
    this.made.push(id);
    for (const warning of warnings) await this.output.stdout(` ---> [Warning] ${warning}\n`);
    await this.output.stdout(` ---> Running in ${id.slice(0, 12)}\n`);
    return id;
  }

  /** A step that changes only the config: its comment is its Cmd, after the shell (withCmdComment). */
  async commit(state: DispatchState, comment: string): Promise<void> {
    const config = { ...structuredClone(state.runConfig), Cmd: [...state.shell(), '#(nop) ', comment] };
    if (await this.probeCache(state, config)) return;
    const id = await this.create(state, config);
    await this.commitContainer(state, id, config);
  }

  /** The container's changes become the stage's next image. */
  async commitContainer(state: DispatchState, id: string, containerConfig: ContainerConfig, namesContainer = true): Promise<void> {
    state.imageId = await this.containers.commit(id, { config: structuredClone(state.runConfig), containerConfig, author: state.maintainer, namesContainer }, this.signal);
  }

  /** A cancelled step's container goes at once, whatever rm says, as dockerd's (nobody is left to tell). */
  async discard(id: string): Promise<void> {
    const at = this.made.indexOf(id);
    if (at >= 0) this.made.splice(at, 1);
    await this.containers.remove(id);
  }

  /** After a step: its containers go with rm (always with forcerm). */
  async afterStep(failed: boolean): Promise<void> {
    if (!(this.opts.forceRemove || (this.opts.remove && !failed))) return;
    while (this.made.length > 0) {
      const id = this.made.shift() as string;
      await this.containers.remove(id);
      await this.output.stdout(`Removing intermediate container ${id.slice(0, 12)}\n`);
    }
  }
}
