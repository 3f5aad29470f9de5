// One `docker build`, as moby v20.10's classic builder runs it (builder/dockerfile/builder.go
// build and dispatchDockerfileWithCancellation, builder/backend/backend.go Build): the context is
// read whole, the Dockerfile parsed into stages (up to the target), the build's labels appended to
// the last stage as a LABEL step, then every step printed ("Step N/M : ...") and dispatched, each
// stage's image announced as an aux record; at the end the unused build args are warned about and
// the image is tagged. Everything that fails before the first line is a status code; after it, the
// route writes the error in-band.
import { EngineError, invalidParameter } from '../../errors.js';
import { familiarString, formatReference, parseNormalizedReference, withDefaultTag } from '../../image/reference.js';
import type { AuthConfig } from '../../image/registry/auth-header.js';
import type { ProgressSink } from '../../lib/stream-session.js';
import type { BuildOptions } from '../build-options.js';
import type { BuildContainers, BuildImages } from '../build-ports.js';
import type { BuildContext } from '../context/build-context.js';
import { CopySource } from '../context/copy-source.js';
import { parseDockerfile, type ParsedDockerfile } from '../dockerfile/parse-dockerfile.js';
import { parseCommand, parseStages, type Command } from '../dockerfile/instructions.js';
import { processWord, type EscapeToken } from '../dockerfile/shell-lex.js';
import { BuildArgs } from './build-args.js';
import { BuildOutput } from './build-output.js';
import { dispatchCommand } from './dispatch.js';
import { initializeStage } from './dispatchers/from.js';
import { DispatchState } from './dispatch-state.js';
import { ImageCache } from './image-cache.js';
import { StepRunner } from './step-runner.js';

export interface BuildSessionDeps {
  images: BuildImages;
  containers: BuildContainers;
  /** where ADD's downloads go, on the data root's file system */
  stagingDir: string;
}

export class BuildSession {
  readonly output: BuildOutput;
  readonly cache: ImageCache;
  readonly steps: StepRunner;
  readonly escapeToken: EscapeToken;
  /** each finished stage's image, by position and by name */
  private readonly stageImages: Array<{ name: string; imageId: string }> = [];

  constructor(
    private readonly deps: BuildSessionDeps,
    readonly options: BuildOptions,
    readonly context: BuildContext,
    readonly dockerfile: ParsedDockerfile,
    out: ProgressSink,
    readonly signal: AbortSignal,
  ) {
    this.output = new BuildOutput(out, options.quiet);
    this.cache = new ImageCache(deps.images, { noCache: options.noCache, cacheFrom: options.cacheFrom });
    this.escapeToken = dockerfile.escapeToken;
    this.steps = new StepRunner({
      containers: deps.containers,
      cache: this.cache,
      output: this.output,
      hostConfig: options.hostConfig,
      remove: options.remove,
      forceRemove: options.forceRemove,
      signal,
    });
  }

  get images(): BuildImages {
    return this.deps.images;
  }

  get stagingDir(): string {
    return this.deps.stagingDir;
  }

  /** The build's image ID. */
  async run(): Promise<string> {
    try {
      const imageId = await this.build();
      await this.output.finish(imageId);
      return imageId;
    } catch (err) {
      await this.output.flushHeld();
      throw err;
    }
  }

  private async build(): Promise<string> {
    const parsed = parseStages(this.dockerfile);
    const { metaArgs } = parsed;
    let { stages } = parsed;
    if (this.options.target !== '') {
      const at = stages.findIndex((s) => s.name === this.options.target.toLowerCase());
      if (at < 0) throw invalidParameter(`failed to reach build target ${this.options.target} in Dockerfile`);
      stages = stages.slice(0, at + 1);
    }
    // the build's labels: one LABEL step each, sorted, at the end of the last stage (buildLabelOptions)
    for (const key of Object.keys(this.options.labels).sort()) stages.at(-1)?.commands.push(labelCommand(key, this.options.labels[key]));
    for (const warning of this.dockerfile.warnings) await this.output.stderr(warning);

    const total = metaArgs.length + stages.reduce((n, s) => n + 1 + s.commands.length, 0);
    let step = 1;
    const printStep = async (original: string) => {
      await this.output.stdout(`Step ${step++}/${total} : ${original}`);
      await this.output.stdout('\n');
    };
    const buildArgs = new BuildArgs(this.options.buildArgs);
    for (const meta of metaArgs) {
      await printStep(meta.original);
      const env = [...buildArgs.allowedValues()].map(([k, v]) => `${k}=${v}`);
      for (const { key, value } of meta.args) {
        const expanded = value === undefined ? undefined : processWord(value, env, this.escapeToken);
        buildArgs.addArg(key, expanded);
        buildArgs.addMetaArg(key, expanded);
      }
    }
    let state: DispatchState | undefined;
    for (const stage of stages) {
      if (stage.name !== '' && this.stageImages.some((s) => s.name === stage.name)) throw invalidParameter('a stage name already used');
      state = new DispatchState(buildArgs.forStage());
      await printStep(stage.original);
      await initializeStage(this, state, stage);
      state.updateRunConfig();
      await this.output.stdout(` ---> ${shortId(state.imageId)}\n`);
      for (const command of stage.commands) {
        if (this.signal.aborted) throw new EngineError('system', 'Build cancelled');
        await printStep(command.original);
        await this.dispatch(state, command);
        state.updateRunConfig();
        await this.output.stdout(` ---> ${shortId(state.imageId)}\n`);
      }
      // a stage that made no image (FROM scratch alone) announces none
      if (state.imageId !== '') await this.output.aux({ ID: state.imageId });
      buildArgs.mergeReferenced(state.buildArgs);
      this.stageImages.push({ name: stage.name, imageId: state.imageId });
    }
    const warning = buildArgs.unusedWarning();
    if (warning !== undefined) await this.output.stdout(warning);
    const imageId = state?.imageId ?? '';
    if (imageId === '') throw invalidParameter('No image was generated. Is your Dockerfile empty?');
    await this.output.stdout(`Successfully built ${shortId(imageId)}\n`);
    for (const tag of this.options.tags) {
      const ref = withDefaultTag(tag);
      await this.images.tag(imageId, formatReference({ domain: ref.domain, path: ref.path }), ref.tag as string);
      await this.output.stdout(`Successfully tagged ${familiarString(ref)}\n`);
    }
    return imageId;
  }

  /** One step: its words expanded, dispatched, its containers removed as rm and forcerm say. */
  async dispatch(state: DispatchState, command: Command): Promise<void> {
    let failed = true;
    try {
      await dispatchCommand(this, state, command);
      failed = false;
    } finally {
      await this.steps.afterStep(failed);
    }
  }

  /** An ONBUILD trigger of the base image, parsed as a one-line Dockerfile. */
  parseTrigger(trigger: string): Command {
    const { nodes } = parseDockerfile(trigger);
    if (nodes.length !== 1) throw invalidParameter('onbuild trigger should be a single expression');
    return parseCommand(nodes[0]);
  }

  /**
   * COPY --from's image: an earlier stage by name or position, else an image (pulled when it is
   * not here, or always with pull=1), as dockerd's getImageMount.
   */
  async fromImage(nameOrIndex: string): Promise<string> {
    const stage = this.stageImage(nameOrIndex, true);
    if (stage !== undefined) return stage;
    if (/^-?\d+$/.test(nameOrIndex)) throw new EngineError('system', 'index out of bounds');
    if (this.options.pull || this.images.find(nameOrIndex) === undefined) {
      await this.images.pull(nameOrIndex, this.authFor(nameOrIndex), this.options.platform, this.output.progress, this.signal);
    }
    return this.images.get(nameOrIndex).id;
  }

  /** Runs `work` on an image's root file system, mounted (through a container of it that never runs). */
  async withImageRoot<T>(imageId: string, work: (source: CopySource) => Promise<T>): Promise<T> {
    const { containers } = this.deps;
    const { id } = await containers.create(imageId, { Cmd: ['true'] }, this.options.hostConfig);
    try {
      return await containers.withRootfs(id, (merged) => work(new CopySource(merged)));
    } finally {
      await containers.remove(id);
    }
  }

  /** The image of an earlier stage by name, or (for COPY --from) by position. */
  stageImage(nameOrIndex: string, byIndex = false): string | undefined {
    const lower = nameOrIndex.toLowerCase();
    const named = this.stageImages.find((s) => s.name !== '' && s.name === lower);
    if (named !== undefined) return named.imageId;
    if (byIndex && /^\d+$/.test(nameOrIndex)) return this.stageImages[Number(nameOrIndex)]?.imageId;
    return undefined;
  }

  /** The credentials X-Registry-Config gives for the registry of `name`. */
  authFor(name: string): AuthConfig | undefined {
    const { domain } = parseNormalizedReference(name);
    for (const [key, auth] of Object.entries(this.options.authConfigs)) {
      const host = key.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
      const hub = domain === 'docker.io' && ['index.docker.io', 'docker.io', 'registry-1.docker.io'].includes(host);
      if (host === domain || hub) return withDecodedAuth(auth);
    }
    return undefined;
  }
}

/** The CLI sends `auth` (base64 user:password) alone for some credential stores. */
function withDecodedAuth(auth: AuthConfig & { auth?: string }): AuthConfig {
  if (auth.username || !auth.auth) return auth;
  const [username, ...rest] = Buffer.from(auth.auth, 'base64').toString('utf8').split(':');
  return { ...auth, username, password: rest.join(':') };
}

/** A label given with the build, taken as it is (never expanded). */
function labelCommand(key: string, value: string): Command {
  return { kind: 'label', pairs: [{ key, value }], noExpand: true, original: `LABEL ${key}=${value}`, line: 0 };
}

function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}
