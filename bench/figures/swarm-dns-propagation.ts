// From healthy to resolvable on another node: how long a swarm takes to carry a task's endpoint
// record from its node to another's DNS once the task turns healthy (a task with a health check
// has records only from then on). On berth's swarm of two nodes (bench/service-swarms.ts
// berthSwarm: n1 the manager, n2 a worker), an overlay network `bench` with a long-running
// "watcher" service on n2; per round, a service probe-N on n1 whose health check passes once
// /ready exists, its container then given /ready by `docker exec`. t0: the `health_status:
// healthy` event's time on n1 (GET /events, timeNano); t1: the wall time of the first answer with
// an address to `tasks.probe-N`, asked every 10 ms from inside the watcher's container (node in
// its network namespace, bench/dns-wait.ts, at the resolver its /etc/resolv.conf names), the
// queries started before the probe's container. Between rounds, untimed, the probe is removed.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DnsWaitInput, DnsWaitResult } from '../dns-wait.js';
import type { EngineApi } from '../engine-api.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';
import { nodeIn } from '../netns.js';
import { berthSwarm, createdServiceId, POLL_MS, removeService, SERVICE_IMAGES, untilRunning } from '../service-swarms.js';

const ROUNDS = 5;
const WARM_UPS = 1;
const DNS_POLL_MS = 10;
const RUNNING_TIMEOUT_MS = 60_000;
const RESOLVE_TIMEOUT_MS = 30_000;
const NETWORK = 'bench';
const SERVICE_NAME_LABEL = 'com.docker.swarm.service.name';

interface ContainerJson {
  Id: string;
  State: { Pid: number };
  NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
}

export const swarmDnsPropagation: Figure = {
  name: 'swarm dns from healthy',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await berthSwarm(ctx, 'swarm-dns', 2);
    try {
      const [n1, n2] = setup.nodes;
      const [image] = SERVICE_IMAGES;
      await n1.docker(['network', 'create', '--driver', 'overlay', NETWORK]);
      const watcherId = createdServiceId(await n1.docker(['service', 'create', '--detach', '--name', 'watcher', '--constraint', 'node.role==worker', '--network', NETWORK, '--stop-grace-period', '1s', image, 'sleep', '3600']));
      await untilRunning(setup.swarm, watcherId, 1, image, RUNNING_TIMEOUT_MS);
      const watcher = await runningContainer(n2.api, 'watcher');
      const netns = `/proc/${watcher.State.Pid}/ns/net`;
      const server = nameserver(watcher.State.Pid);
      ctx.progress(`watcher on ${n2.name}, resolver ${server} as its /etc/resolv.conf says`);
      const samples: number[] = [];
      for (let round = 0; round < WARM_UPS + ROUNDS; round++) {
        const name = `probe-${round}`;
        const sinceS = Math.floor(Date.now() / 1000) - 1;
        const id = createdServiceId(
          await n1.docker([
            'service', 'create', '--detach', '--name', name, '--constraint', 'node.role==manager', '--network', NETWORK,
            '--health-cmd', 'test -f /ready', '--health-interval', '100ms', '--health-retries', '1000', '--stop-grace-period', '1s',
            image, 'sleep', '3600',
          ]),
        );
        const input: DnsWaitInput = { server, name: `tasks.${name}`, pollMs: DNS_POLL_MS, timeoutMs: RESOLVE_TIMEOUT_MS };
        const resolved = nodeIn<DnsWaitResult>(netns, 'dns-wait', input, RESOLVE_TIMEOUT_MS + 10_000);
        // awaited below; a failure before then must not go unhandled
        resolved.catch(() => undefined);
        const probe = await runningContainer(n1.api, name);
        await n1.docker(['exec', probe.Id, 'touch', '/ready']);
        const answer = await resolved;
        const healthyAtMs = await healthyAt(n1.api, probe.Id, sinceS);
        const address = probe.NetworkSettings.Networks[NETWORK]?.IPAddress;
        if (answer.firstQueryAtMs >= healthyAtMs) throw new Error(`the queries for ${input.name} began after the probe was healthy: the round measures nothing`);
        if (address === undefined || answer.addresses.join() !== address) throw new Error(`tasks.${name} answered ${answer.addresses.join(', ')}, not the probe's address on ${NETWORK} (${address})`);
        const ms = answer.answeredAtMs - healthyAtMs;
        await removeService(setup.swarm, id);
        if (round < WARM_UPS) continue;
        samples.push(ms);
        ctx.progress(`round ${samples.length}: ${ms.toFixed(1)} ms (${answer.queries} queries)`);
      }
      return [
        {
          figure: `a task's name on another node: from its health_status healthy event until tasks.<service> answers from a container there (asked every ${DNS_POLL_MS} ms)`,
          unit: 'ms',
          berth: median(samples),
          reference: null,
          target: { kind: 'below', limit: 1000 },
          samples: { berth: samples, reference: [] },
          note: 'berth only: 2 nodes (1 manager, 1 worker), an overlay network; the reference\'s swarm load balancing needs IPVS, which this kernel lacks',
        },
      ];
    } finally {
      await setup.close();
    }
  },
};

/** The node's running container of the service, once there is one; polled every POLL_MS. */
async function runningContainer(api: EngineApi, service: string): Promise<ContainerJson> {
  const query = encodeURIComponent(JSON.stringify({ label: [`${SERVICE_NAME_LABEL}=${service}`], status: ['running'] }));
  const deadlineMs = performance.now() + RUNNING_TIMEOUT_MS;
  for (;;) {
    const [found] = JSON.parse((await api.call('GET', `/containers/json?filters=${query}`, [200])).text) as Array<{ Id: string }>;
    if (found !== undefined) return JSON.parse((await api.call('GET', `/containers/${found.Id}/json`, [200])).text) as ContainerJson;
    if (performance.now() > deadlineMs) throw new Error(`no running container of ${service} on ${api.socket} after ${RUNNING_TIMEOUT_MS} ms`);
    await sleep(POLL_MS);
  }
}

/** When the container turned healthy, in ms since the epoch: its `health_status: healthy` event since `sinceS`. */
async function healthyAt(api: EngineApi, containerId: string, sinceS: number): Promise<number> {
  const filters = encodeURIComponent(JSON.stringify({ type: ['container'], event: ['health_status'] }));
  const untilS = Math.ceil(Date.now() / 1000);
  const { text } = await api.call('GET', `/events?since=${sinceS}&until=${untilS}&filters=${filters}`, [200]);
  const events = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { Action: string; Actor: { ID: string }; timeNano: number });
  const healthy = events.find((e) => e.Actor.ID === containerId && e.Action === 'health_status: healthy');
  if (healthy === undefined) throw new Error(`no health_status: healthy event for ${containerId} since ${sinceS}: ${events.map((e) => e.Action).join(', ')}`);
  return healthy.timeNano / 1e6;
}

function nameserver(pid: number): string {
  const resolvConf = readFileSync(`/proc/${pid}/root/etc/resolv.conf`, 'utf8');
  const server = /^nameserver\s+(\S+)/m.exec(resolvConf)?.[1];
  if (server === undefined) throw new Error(`no nameserver in the resolv.conf of process ${pid}: ${resolvConf}`);
  return server;
}
