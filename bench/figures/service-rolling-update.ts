// A rolling update of a replicated service: `docker service update --detach --image <the other tag>
// --update-parallelism 2 --update-delay 0s --update-monitor 1s` through the docker CLI at the
// manager, on a service of 10 `sleep 3600` tasks made with `--stop-grace-period 1s`, timed from the
// command's spawn until the manager's GET /services/ID (polled every 20 ms from the command's return)
// says UpdateStatus.State completed; then all 10 tasks must run the new image. Five batches of two,
// each stopping its old tasks first: `sleep`, as PID 1, ignores SIGTERM, so each stop lasts the
// grace period (1 s rather than the default 10). Both engines wait out the monitor after the last
// batch before they call the update completed: 1 s rather than the default 5, so that the figure is
// mostly the engines' own work. On berth's swarm of three nodes and the reference's of one
// (bench/service-swarms.ts), alternating; each round's service is made and converged before the
// timing, and removed after it (its containers waited for), untimed.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { createdServiceId, POLL_MS, removeService, SERVICE_IMAGES, serviceSwarms, untilRunning, type ServiceSwarm } from '../service-swarms.js';

const REPLICAS = 10;
const ROUNDS = 5;
const CONVERGE_TIMEOUT_MS = 60_000;
const UPDATE_TIMEOUT_MS = 120_000;
const UPDATE_FLAGS = ['--update-parallelism', '2', '--update-delay', '0s', '--update-monitor', '1s'];

export const serviceRollingUpdate: Figure = {
  name: 'swarm service rolling update',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await serviceSwarms(ctx, 'service-update');
    try {
      const [from, to] = SERVICE_IMAGES;
      const samples = await alternateRounds(ctx, setup.swarms, { warmUps: 0, rounds: ROUNDS, unit: 's' }, async (swarm) => {
        const id = createdServiceId(await swarm.docker(['service', 'create', '--detach', '--replicas', String(REPLICAS), '--stop-grace-period', '1s', from, 'sleep', '3600']));
        await untilRunning(swarm, id, REPLICAS, from, CONVERGE_TIMEOUT_MS);
        const startedMs = performance.now();
        await swarm.docker(['service', 'update', '--detach', '--image', to, ...UPDATE_FLAGS, id]);
        await untilUpdateCompleted(swarm, id);
        const seconds = (performance.now() - startedMs) / 1000;
        // a completed update runs the new image everywhere already
        await untilRunning(swarm, id, REPLICAS, to, 0);
        await removeService(swarm, id);
        return seconds;
      });
      return [
        comparedRow(
          `docker service update --image (CLI) of ${REPLICAS} tasks, 2 at a time, until completed (GET /services/ID every ${POLL_MS} ms)`,
          's',
          samples,
          undefined,
          `--update-delay 0s, --update-monitor 1s (not the default 5 s), tasks made with --stop-grace-period 1s (sleep ignores SIGTERM); ${setup.description}`,
        ),
      ];
    } finally {
      await setup.close();
    }
  },
};

/** Polls the service every POLL_MS until its update has completed; throws if it pauses or rolls back instead. */
async function untilUpdateCompleted(swarm: ServiceSwarm, serviceId: string): Promise<void> {
  const deadlineMs = performance.now() + UPDATE_TIMEOUT_MS;
  for (;;) {
    const service = JSON.parse((await swarm.api.call('GET', `/services/${serviceId}`, [200])).text) as { UpdateStatus?: { State: string; Message: string } };
    const state = service.UpdateStatus?.State;
    if (state === 'completed') return;
    if (state !== undefined && state !== 'updating') throw new Error(`${swarm.name}: the update of ${serviceId} ended ${state}: ${service.UpdateStatus?.Message}`);
    if (performance.now() > deadlineMs) throw new Error(`${swarm.name}: the update of ${serviceId} is ${state ?? 'not begun'} after ${UPDATE_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
}
