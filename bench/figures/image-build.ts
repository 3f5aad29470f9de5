// docker build through the CLI's classic builder (DOCKER_BUILDKIT=0, so the CLI sends the context
// as a tar to POST /build), alternating berth and the reference:
// - cold: a Dockerfile of 5 steps (FROM, a 10 MiB COPY, RUN, ENV, RUN) with --no-cache, on a
//   fresh start each round: the tag of the round before, and its intermediates, removed first;
// - warm: the same build right after, every step from the cold build's cache;
// - context: a 200 MiB context that the Dockerfile (FROM, LABEL; --no-cache) never uses. dockerd
//   unpacks the whole context into a directory of its own, with a checksum of every file, before
//   it reads the Dockerfile; the file is named to sort before the Dockerfile, so the CLI's tar sends
//   it first and no engine can read the Dockerfile and start the build before it has the file.
// The context files are random bytes, which nothing can shrink. Each engine's images are removed
// with `docker rmi -f` of the tags (the intermediates are their untagged parents and go with them).
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { docker, type CliRun } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 1;
const ROUNDS = 3;
const MIB = 1024 * 1024;
const COPY_MIB = 10;
const CONTEXT_MIB = 200;
const CLASSIC_BUILDER = { DOCKER_BUILDKIT: '0' };
const FIVE_STEPS = [`FROM ${BUSYBOX}`, 'COPY big /big', 'RUN wc -c /big', 'ENV X=1', 'RUN echo done > /done'];
/** The steps after FROM, which a warm build takes from the cache. */
const CACHEABLE_STEPS = FIVE_STEPS.length - 1;
const UNUSED_CONTEXT = [`FROM ${BUSYBOX}`, 'LABEL a=b'];

export const imageBuild: Figure = {
  name: 'docker build',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const configDir = ctx.makeDir('docker-config');
    const fiveSteps = ctx.makeDir('build-context');
    const bigContext = ctx.makeDir('build-big-context');
    try {
      writeContext(fiveSteps, FIVE_STEPS, 'big', COPY_MIB);
      ctx.progress(`writing a ${CONTEXT_MIB} MiB build context`);
      // 'Big' sorts before 'Dockerfile' (the CLI walks the context in lexical order)
      writeContext(bigContext, UNUSED_CONTEXT, 'Big', CONTEXT_MIB);
      const setup = await containerEngines(ctx, 'build');
      const cli = new StoppableCli(configDir);
      const tag = `${setup.namePrefix}build:1`;
      const contextTag = `${setup.namePrefix}context:1`;
      const removeImages = async () => {
        for (const engine of setup.engines) {
          if (engine.name === 'berth' && !setup.berthd.running) continue;
          // -f: a tag the figure did not get to is no error
          await docker(engine.socket, configDir, ['rmi', '-f', tag, contextTag]).catch((err: unknown) => ctx.progress(`clean-up: ${err instanceof Error ? err.message : String(err)}`));
        }
      };
      // Also when Ctrl-C stops the run: left with the session after the engines' own clean-up, so
      // run before it (the last first), while berthd still serves. The figure goes on meanwhile, so
      // the command under way is let finish (a build would tag its image after the removal) and
      // the next one refused.
      const takeBack = ctx.atClose(async () => {
        await cli.stop();
        await removeImages();
      });
      try {
        return await measureBuilds(ctx, setup.engines, cli, { tag, contextTag, fiveSteps, bigContext });
      } finally {
        takeBack();
        await removeImages();
        await setup.close();
      }
    } finally {
      rmSync(fiveSteps, { recursive: true, force: true });
      rmSync(bigContext, { recursive: true, force: true });
    }
  },
};

/** The figure's docker commands, one at a time, which stop() lets finish and refuses after. */
class StoppableCli {
  private last: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly configDir: string) {}

  run(engine: ContainerEngine, args: string[]): Promise<CliRun> {
    if (this.stopped) return Promise.reject(new Error('the run is stopping'));
    const run = docker(engine.socket, this.configDir, args, CLASSIC_BUILDER);
    this.last = run.catch(() => undefined);
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.last;
  }
}

async function measureBuilds(
  ctx: BenchContext,
  engines: ContainerEngine[],
  cli: StoppableCli,
  { tag, contextTag, fiveSteps, bigContext }: { tag: string; contextTag: string; fiveSteps: string; bigContext: string },
): Promise<Row[]> {
  const build = (engine: ContainerEngine, args: string[]) => cli.run(engine, ['build', ...args]);
  // a row's note says so when an engine's build did not do what the row says it measures
  const problems = { cold: new Set<string>(), warm: new Set<string>() };
  const expectCached = (engine: ContainerEngine, stdout: string, which: 'cold' | 'warm', expected: number) => {
    const cached = stdout.match(/^ ---> Using cache$/gm)?.length ?? 0;
    if (cached !== expected) problems[which].add(`${engine.name} took ${cached} of the ${CACHEABLE_STEPS} steps after FROM from the cache`);
  };
  const note = (which: 'cold' | 'warm') => (problems[which].size > 0 ? [...problems[which]].join('; ') : undefined);

  const cold = await alternateRounds(ctx, engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
    await cli.run(engine, ['rmi', '-f', tag]);
    const run = await build(engine, ['--no-cache', '-t', tag, fiveSteps]);
    expectCached(engine, run.stdout, 'cold', 0);
    return run.ms / 1000;
  });
  const warm = await alternateRounds(ctx, engines, { warmUps: 0, rounds: ROUNDS, unit: 's' }, async (engine) => {
    const run = await build(engine, ['-t', tag, fiveSteps]);
    expectCached(engine, run.stdout, 'warm', CACHEABLE_STEPS);
    return run.ms / 1000;
  });
  const context = await alternateRounds(ctx, engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
    await cli.run(engine, ['rmi', '-f', contextTag]);
    return (await build(engine, ['--no-cache', '-t', contextTag, bigContext])).ms / 1000;
  });
  const steps = `${FIVE_STEPS.length} steps: FROM, COPY ${COPY_MIB} MiB, RUN, ENV, RUN`;
  return [
    comparedRow(`docker build --no-cache, ${steps} (CLI, classic builder)`, 's', cold, { kind: 'atMostReference', ratio: 0.7 }, note('cold')),
    comparedRow('docker build of the same again, every step from the cache (CLI, classic builder)', 's', warm, { kind: 'atMostReference', ratio: 0.5 }, note('warm')),
    comparedRow(`docker build --no-cache of FROM, LABEL with a ${CONTEXT_MIB} MiB context it does not use (CLI, classic builder)`, 's', context, { kind: 'atMostReference', ratio: 1 }),
  ];
}

/** A Dockerfile and one file of `mib` MiB of random bytes, named `name`, in `dir`. */
function writeContext(dir: string, dockerfile: string[], name: string, mib: number): void {
  writeFileSync(path.join(dir, 'Dockerfile'), `${dockerfile.join('\n')}\n`);
  const fd = openSync(path.join(dir, name), 'w');
  try {
    for (let i = 0; i < mib; i++) writeSync(fd, randomBytes(MIB));
  } finally {
    closeSync(fd);
  }
}
