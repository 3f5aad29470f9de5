// `docker ps -a` through the docker CLI with 200 containers (created, never started; made through
// the API, a few at a time). On the shared reference other containers may be listed too: the note
// says how many.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { inBatches } from '../engine-api.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const CONTAINERS = 200;
const CREATE_CONCURRENCY = 4;
const WARM_UPS = 1;
const ROUNDS = 7;

export const containerList: Figure = {
  name: 'docker ps -a',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'list');
    const configDir = ctx.makeDir('docker-config');
    const listed = new Map<string, number>();
    try {
      for (const { name, api } of setup.engines) {
        ctx.progress(`creating ${CONTAINERS} containers on ${name}`);
        await inBatches(Array.from({ length: CONTAINERS }, (_, i) => i), CREATE_CONCURRENCY, (i) => api.create({ Image: BUSYBOX, Cmd: ['true'] }, `${setup.namePrefix}${i}`));
      }
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async ({ name, socket }) => {
        const run = await docker(socket, configDir, ['ps', '-a']);
        // the header, then one line per container
        listed.set(name, run.stdout.trimEnd().split('\n').length - 1);
        return run.ms;
      });
      if ((listed.get('berth') ?? 0) !== CONTAINERS) throw new Error(`docker ps -a on berth listed ${listed.get('berth')} containers, not ${CONTAINERS}`);
      const reference = listed.get('reference');
      const note = reference !== undefined && reference !== CONTAINERS ? `the reference listed ${reference} containers (others share it)` : undefined;
      return [comparedRow(`docker ps -a with ${CONTAINERS} containers (CLI)`, 'ms', samples, undefined, note)];
    } finally {
      await setup.close();
    }
  },
};
