// The embedded DNS server as a container meets it: queries per second and p99 latency of an A
// query for a container's name, with 50 UDP queriers in a closed loop (bench/dns-queriers.ts) run
// by node inside a querying container's network namespace (nsenter into /proc/PID/ns/net), on a
// user-defined network made for the figure on each engine. Each engine's resolver is the one the
// container's /etc/resolv.conf names: Docker's 127.0.0.11, which iptables rules in the container's
// namespace send to dockerd's socket there; berth's, the network's gateway, across the bridge to
// berthd. The queriers take one core; the server has the other (dockerd may use both). The issue's
// targets: p99 within 1 ms, and at least dockerd's queries per second.
import { readFileSync } from 'node:fs';
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import type { QueriersProcessInput, QueriersProcessResult } from '../dns-queriers-process.js';
import { alternateRounds, comparedRow, type Samples } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { nodeIn } from '../netns.js';

const QUERIERS = 50;
const ROUNDS = 5;
const ROUND_MS = 2000;
const WARMUP_MS = 500;
const RUN_TIMEOUT_MS = 30_000;

interface Querying {
  /** the querying container's namespace */
  netns: string;
  input: Omit<QueriersProcessInput, 'durationMs' | 'warmupMs'>;
}

export const containerDns: Figure = {
  name: 'dns from a container',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'dns');
    try {
      const querying = new Map<ContainerEngine, Querying>();
      for (const engine of setup.engines) {
        const network = await setup.createNetwork(engine, 'net');
        const run = async (name: string) => {
          const id = await engine.api.create({ Image: BUSYBOX, Cmd: ['sleep', '3600'], HostConfig: { NetworkMode: network } }, `${setup.namePrefix}${name}`);
          await engine.api.start(id);
          return engine.api.inspect(id);
        };
        const web = await run('web');
        const querier = await run('querier');
        const server = nameserver(querier.State.Pid);
        ctx.progress(`${engine.name}: resolver ${server}, as the querier's /etc/resolv.conf says`);
        querying.set(engine, {
          netns: `/proc/${querier.State.Pid}/ns/net`,
          input: { config: { server, port: 53, name: `${setup.namePrefix}web`, queriers: QUERIERS }, expect: web.NetworkSettings.Networks[network].IPAddress },
        });
      }
      const p99s: Samples = { berth: [], reference: [] };
      const rates = await alternateRounds(ctx, setup.engines, { warmUps: 0, rounds: ROUNDS, unit: 'req/s' }, async (engine) => {
        const q = querying.get(engine) as Querying;
        const r = await nodeIn<QueriersProcessResult>(q.netns, 'dns-queriers-process', { ...q.input, warmupMs: WARMUP_MS, durationMs: ROUND_MS }, RUN_TIMEOUT_MS);
        ctx.progress(`${engine.name}: ${Math.round(r.queriesPerS)} queries/s, p50 ${r.p50Ms.toFixed(3)} ms, p99 ${r.p99Ms.toFixed(3)} ms; queriers busy ${Math.round(r.utilization * 100)} %`);
        p99s[engine.name].push(r.p99Ms);
        return r.queriesPerS;
      });
      const figure = `DNS A query for a container name from inside a container, ${QUERIERS} UDP queriers`;
      return [
        comparedRow(`${figure}, throughput`, 'req/s', rates, { kind: 'atLeastReference' }),
        comparedRow(`${figure}, latency p99`, 'ms', p99s, { kind: 'below', limit: 1 }),
      ];
    } finally {
      await setup.close();
    }
  },
};

/** The first nameserver of the container's /etc/resolv.conf, read through its process's root. */
function nameserver(pid: number): string {
  const resolvConf = readFileSync(`/proc/${pid}/root/etc/resolv.conf`, 'utf8');
  const server = /^nameserver\s+(\S+)/m.exec(resolvConf)?.[1];
  if (server === undefined) throw new Error(`no nameserver in the resolv.conf of process ${pid}: ${resolvConf}`);
  return server;
}
