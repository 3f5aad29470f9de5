// A container's whole life through the API, no CLI: create, start, wait, remove, for 20 containers
// one after the other, timed together.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { performance } from 'node:perf_hooks';

const CONTAINERS = 20;
const WARM_UPS = 1;
const ROUNDS = 3;

export const containerCycle: Figure = {
  name: 'container cycle',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'cycle');
    let round = 0;
    try {
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async ({ api }) => {
        round++;
        const startedMs = performance.now();
        for (let i = 0; i < CONTAINERS; i++) {
          const id = await api.create({ Image: BUSYBOX, Cmd: ['true'] }, `${setup.namePrefix}${round}-${i}`);
          await api.start(id);
          const code = await api.wait(id);
          if (code !== 0) throw new Error(`container ${id} on ${api.socket} exited with ${code}`);
          await api.remove(id);
        }
        return (performance.now() - startedMs) / 1000;
      });
      return [comparedRow(`create+start+wait+rm, ${CONTAINERS} in sequence (API)`, 's', samples)];
    } finally {
      await setup.close();
    }
  },
};
