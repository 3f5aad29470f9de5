// One stage's state as its steps change it (moby v20.10 builder/dockerfile/dispatchers.go
// dispatchState): the image so far, the config its next image gets, the stage's build arguments,
// the maintainer (each image's author), and whether CMD was set in this stage (ENTRYPOINT resets a
// CMD inherited from the base image, not one set here).
import type { ContainerConfig } from '../../container/config/types.js';
import type { BuildArgs } from './build-args.js';

/** dockerd's PATH for a stage whose base image sets none (system.DefaultPathEnv on Linux). */
const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export class DispatchState {
  stageName = '';
  /** '' until FROM, and for scratch */
  imageId = '';
  runConfig: ContainerConfig = {};
  maintainer = '';
  cmdSet = false;

  constructor(readonly buildArgs: BuildArgs) {}

  /** FROM: the base image's config, with a PATH, never holding stdin open. */
  beginStage(name: string, imageId: string, baseConfig: ContainerConfig | null | undefined): void {
    this.stageName = name;
    this.imageId = imageId;
    this.runConfig = baseConfig ? structuredClone(baseConfig) : {};
    const env = this.runConfig.Env ?? [];
    if (!env.some((e) => e.startsWith('PATH='))) this.runConfig.Env = [...env, DEFAULT_PATH];
    this.runConfig.OpenStdin = false;
    this.runConfig.StdinOnce = false;
  }

  /** After each step: the next step's container is made from the image so far. */
  updateRunConfig(): void {
    this.runConfig.Image = this.imageId;
  }

  /** The shell a shell-form command runs in: SHELL's, else /bin/sh -c. */
  shell(): string[] {
    const shell = this.runConfig.Shell;
    return shell && shell.length > 0 ? [...shell] : ['/bin/sh', '-c'];
  }

  /** The config's Env with the stage's build args that it does not set: what words are expanded with. */
  expansionEnv(): string[] {
    const env = this.runConfig.Env ?? [];
    return [...env, ...this.buildArgs.filterAllowed(env)];
  }
}
