// `docker run --rm busybox true` through the docker CLI, from spawn to exit: create, attach, wait,
// start, the container's run and its removal, as a user sees them.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 1;
const ROUNDS = 9;

export const containerRun: Figure = {
  name: 'docker run --rm',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'run');
    const configDir = ctx.makeDir('docker-config');
    try {
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async (engine) => {
        return (await docker(engine.socket, configDir, ['run', '--rm', BUSYBOX, 'true'])).ms;
      });
      return [comparedRow('docker run --rm busybox true (CLI)', 'ms', samples, { kind: 'atMostReference', ratio: 0.4 })];
    } finally {
      await setup.close();
    }
  },
};
