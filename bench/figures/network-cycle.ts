// container cycle's figure on a user-defined network: create, start, wait, remove, for 20
// containers one after the other through the API, each with HostConfig.NetworkMode naming a bridge
// network made for the figure on each engine (and removed after it). On a user network each run
// also gets its names in the engine's embedded DNS server.
import { performance } from 'node:perf_hooks';
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const CONTAINERS = 20;
const WARM_UPS = 1;
const ROUNDS = 3;

export const networkCycle: Figure = {
  name: 'container cycle on a user network',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'netcycle');
    const networks = new Map<ContainerEngine, string>();
    let round = 0;
    try {
      for (const engine of setup.engines) networks.set(engine, await setup.createNetwork(engine, 'net'));
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
        const { api } = engine;
        const config = { Image: BUSYBOX, Cmd: ['true'], HostConfig: { NetworkMode: networks.get(engine) } };
        round++;
        const startedMs = performance.now();
        for (let i = 0; i < CONTAINERS; i++) {
          const id = await api.create(config, `${setup.namePrefix}${round}-${i}`);
          await api.start(id);
          const code = await api.wait(id);
          if (code !== 0) throw new Error(`container ${id} on ${api.socket} exited with ${code}`);
          await api.remove(id);
        }
        return (performance.now() - startedMs) / 1000;
      });
      return [comparedRow(`create+start+wait+rm on a user network, ${CONTAINERS} in sequence (API)`, 's', samples, { kind: 'atMostReference', ratio: 0.4 })];
    } finally {
      await setup.close();
    }
  },
};
