// 50 `docker run -d busybox sleep 300` at once through the docker CLI, each with a name of its
// own, from the first spawn to the last exit; every one must succeed. The containers are removed
// between rounds, untimed.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { performance } from 'node:perf_hooks';

const CONTAINERS = 50;
const ROUNDS = 2;

export const concurrentRun: Figure = {
  name: 'concurrent docker run -d',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'concurrent');
    const configDir = ctx.makeDir('docker-config');
    let round = 0;
    try {
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: 0, rounds: ROUNDS, unit: 's' }, async ({ api, socket }) => {
        round++;
        const names = Array.from({ length: CONTAINERS }, (_, i) => `${setup.namePrefix}${round}-${i}`);
        const startedMs = performance.now();
        const runs = await Promise.allSettled(names.map((name) => docker(socket, configDir, ['run', '-d', '--name', name, BUSYBOX, 'sleep', '300'])));
        const seconds = (performance.now() - startedMs) / 1000;
        const failed = runs.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        const ids = await api.containersNamed(`${setup.namePrefix}${round}-`);
        await api.removeAll(ids);
        if (failed.length > 0) throw new Error(`${failed.length} of ${CONTAINERS} runs failed on ${socket}; the first: ${String(failed[0].reason)}`);
        if (ids.length !== CONTAINERS) throw new Error(`${CONTAINERS} runs on ${socket} made ${ids.length} containers`);
        return seconds;
      });
      return [comparedRow(`${CONTAINERS} concurrent docker run -d busybox sleep 300 (CLI)`, 's', samples)];
    } finally {
      await setup.close();
    }
  },
};
