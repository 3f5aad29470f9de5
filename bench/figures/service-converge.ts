// A replicated service converging: `docker service create --detach --replicas 10 busybox sleep
// 3600` through the docker CLI at the manager, timed from the command's spawn until the manager's
// GET /tasks (polled every 20 ms from the command's return, which prints the service's ID) lists
// all 10 tasks running. On berth's swarm of three nodes (the tasks spread over them) and on the
// reference's of one (bench/service-swarms.ts), alternating. Between rounds, untimed, the service
// is removed and its containers waited for; `--stop-grace-period 1s` keeps that short (`sleep`, as
// PID 1, ignores SIGTERM).
import { performance } from 'node:perf_hooks';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { createdServiceId, POLL_MS, removeService, SERVICE_IMAGES, serviceSwarms, untilRunning } from '../service-swarms.js';

const REPLICAS = 10;
const ROUNDS = 5;
const CONVERGE_TIMEOUT_MS = 60_000;

export const serviceConverge: Figure = {
  name: 'swarm service converge',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await serviceSwarms(ctx, 'service-converge');
    try {
      const [image] = SERVICE_IMAGES;
      const samples = await alternateRounds(ctx, setup.swarms, { warmUps: 1, rounds: ROUNDS, unit: 's' }, async (swarm) => {
        const startedMs = performance.now();
        const id = createdServiceId(await swarm.docker(['service', 'create', '--detach', '--replicas', String(REPLICAS), '--stop-grace-period', '1s', image, 'sleep', '3600']));
        await untilRunning(swarm, id, REPLICAS, image, CONVERGE_TIMEOUT_MS);
        const seconds = (performance.now() - startedMs) / 1000;
        await removeService(swarm, id);
        return seconds;
      });
      return [comparedRow(`docker service create --replicas ${REPLICAS} busybox sleep 3600 (CLI) until all run (GET /tasks every ${POLL_MS} ms)`, 's', samples, undefined, setup.description)];
    } finally {
      await setup.close();
    }
  },
};
