// A worker joining a berth swarm of one manager: `docker swarm join --token TOKEN --advertise-addr
// ADDR MANAGER:2377` through the docker CLI on a second node, timed from the command's spawn to its
// exit, and to the first answer of the manager's GET /nodes (polled every POLL_MS from the spawn
// on, so a node Ready before the command returns is seen then) that lists the new node Ready.
// Between rounds, untimed, the worker leaves (`docker swarm leave`) and the manager removes its
// node (`docker node rm --force`): each round joins as a new node. berth only: the reference is one
// engine, and a join needs a second.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EngineApi } from '../engine-api.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';
import { startSwarmNodes } from '../swarm-nodes.js';

const ROUNDS = 7;
const POLL_MS = 10;
const READY_TIMEOUT_MS = 30_000;
const NOTE = 'berth only: the reference is a single engine';

interface NodeJson {
  ID: string;
  Status: { State: string };
}

export const swarmJoin: Figure = {
  name: 'swarm join',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const swarm = await startSwarmNodes(ctx, 'swarm-join', 2);
    try {
      const [manager, worker] = swarm.nodes;
      await manager.docker(['swarm', 'init', '--advertise-addr', manager.addr]);
      const token = (await manager.docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
      const returned: number[] = [];
      const ready: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const known = new Set((await nodes(manager.api)).map((n) => n.ID));
        const startedMs = performance.now();
        const stopPolling = new AbortController();
        const readyNode = readyNewNode(manager.api, known, stopPolling.signal);
        // awaited below, unless the join fails
        readyNode.catch(() => undefined);
        const join = await worker.docker(['swarm', 'join', '--token', token, '--advertise-addr', worker.addr, `${manager.addr}:2377`]).catch((err: unknown) => {
          stopPolling.abort();
          worker.berthd.assertRunning();
          manager.berthd.assertRunning();
          throw err;
        });
        const { id, readyMs } = await readyNode;
        returned.push(join.ms);
        ready.push(readyMs - startedMs);
        ctx.progress(`round ${round}/${ROUNDS}: returned after ${join.ms.toFixed(1)} ms, Ready after ${(readyMs - startedMs).toFixed(1)} ms`);
        await worker.docker(['swarm', 'leave']);
        await manager.docker(['node', 'rm', '--force', id]);
      }
      return [
        { figure: 'docker swarm join of a worker, until the command returns (CLI)', unit: 'ms', berth: median(returned), reference: null, samples: { berth: returned, reference: [] }, note: NOTE },
        { figure: 'docker swarm join of a worker, until the manager lists it Ready (CLI, GET /nodes)', unit: 'ms', berth: median(ready), reference: null, samples: { berth: ready, reference: [] }, note: NOTE },
      ];
    } finally {
      await swarm.close();
    }
  },
};

async function nodes(api: EngineApi): Promise<NodeJson[]> {
  return JSON.parse((await api.call('GET', '/nodes', [200])).text) as NodeJson[];
}

/** The first node the manager lists Ready that is not among `known`, and when it was seen. */
async function readyNewNode(api: EngineApi, known: ReadonlySet<string>, signal: AbortSignal): Promise<{ id: string; readyMs: number }> {
  const deadlineMs = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    signal.throwIfAborted();
    const node = (await nodes(api)).find((n) => !known.has(n.ID) && n.Status.State === 'ready');
    if (node) return { id: node.ID, readyMs: performance.now() };
    if (performance.now() > deadlineMs) throw new Error(`the manager did not list the joining worker Ready within ${READY_TIMEOUT_MS} ms`);
    await sleep(POLL_MS, undefined, { signal });
  }
}
