// HTTP requests per second through the routing mesh: on berth's swarm of three nodes
// (bench/service-swarms.ts berthSwarm), a service of two busybox httpd replicas, one per node at
// most, publishing 18081 on the ingress network; loaded with autocannon (bench/http-load.ts) from
// inside the namespace of the node that runs neither, at that node's own address: each connection
// is DNAT'd to the node's ingress sandbox, balanced there to a task on another node and carried
// across the overlay (VXLAN), its answers back the same way. httpd closes every connection after its
// answer, so each request is a new connection, as in the published-port figure; the first request
// waits until the mesh answers. Informative: no target yet.
import type { BenchContext, Figure, Row } from '../figure.js';
import type { HttpLoadInput, HttpLoadResult } from '../http-load.js';
import { median } from '../median.js';
import { nodeIn } from '../netns.js';
import { berthSwarm, createdServiceId, SERVICE_IMAGES, untilRunning, type ServiceSwarm } from '../service-swarms.js';
import type { SwarmNode } from '../swarm-nodes.js';

const PUBLISHED_PORT = 18081;
const REPLICAS = 2;
const ROUNDS = 3;
const LOAD = { connections: 8, durationS: 4, warmupS: 1 };
const RUNNING_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 20_000;
const LOAD_TIMEOUT_MS = 60_000;
const HTTPD = 'mkdir -p /www && echo hello > /www/index.html && exec httpd -f -p 80 -h /www';

export const meshLoad: Figure = {
  name: 'swarm routing mesh load',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await berthSwarm(ctx, 'mesh-load', 3);
    try {
      const [n1] = setup.nodes;
      const [image] = SERVICE_IMAGES;
      const id = createdServiceId(
        await n1.docker([
          'service', 'create', '--detach', '--name', 'web', '--replicas', String(REPLICAS), '--replicas-max-per-node', '1',
          '-p', `${PUBLISHED_PORT}:80`, '--stop-grace-period', '1s', image, 'sh', '-c', HTTPD,
        ]),
      );
      await untilRunning(setup.swarm, id, REPLICAS, image, RUNNING_TIMEOUT_MS);
      const idle = await nodeWithoutTask(setup.swarm, setup.nodes, id);
      ctx.progress(`load from ${idle.name} (${idle.addr}), which runs no task of the service`);
      const input: HttpLoadInput = { url: `http://${idle.addr}:${PUBLISHED_PORT}/index.html`, ...LOAD, readyTimeoutMs: READY_TIMEOUT_MS };
      const samples: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const { requestsPerS } = await nodeIn<HttpLoadResult>(idle.berthd.netns, 'http-load', input, LOAD_TIMEOUT_MS);
        samples.push(requestsPerS);
        ctx.progress(`round ${round}: ${requestsPerS.toFixed(0)} req/s`);
      }
      return [
        {
          figure: `HTTP GET through the routing mesh from a node without a task to its own address, to ${REPLICAS} replicas on other nodes, ${LOAD.connections} connections, one request each`,
          unit: 'req/s',
          berth: median(samples),
          reference: null,
          samples: { berth: samples, reference: [] },
          note: 'berth only: 3 nodes (1 manager, 2 workers), no target yet; the reference\'s routing mesh needs IPVS, which this kernel lacks',
        },
      ];
    } finally {
      await setup.close();
    }
  },
};

/** The node that runs no running task of the service, by its underlay address. */
async function nodeWithoutTask(swarm: ServiceSwarm, nodes: readonly SwarmNode[], serviceId: string): Promise<SwarmNode> {
  const query = encodeURIComponent(JSON.stringify({ service: [serviceId], 'desired-state': ['running'] }));
  const tasks = JSON.parse((await swarm.api.call('GET', `/tasks?filters=${query}`, [200])).text) as Array<{ NodeID: string }>;
  const listed = JSON.parse((await swarm.api.call('GET', '/nodes', [200])).text) as Array<{ ID: string; Status: { Addr: string } }>;
  const busy = new Set(tasks.map((t) => listed.find((n) => n.ID === t.NodeID)?.Status.Addr));
  const idle = nodes.find((n) => !busy.has(n.addr));
  if (idle === undefined) throw new Error(`every node runs a task of ${serviceId}`);
  return idle;
}
