// The DNS queriers as a process of their own, which the container-dns figure runs with node in a
// container's network namespace (nodeIn): first one query, whose answer must be the name's
// address (so that a rate of wrong answers never becomes a figure), then a warm-up, then the
// measured run. Prints the rate, the latency percentiles and how busy the queriers were, as JSON.
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { percentile } from './median.js';
import { runQueriers, type QueriersConfig } from './dns-queriers.js';
import { readInput } from './netns.js';

export interface QueriersProcessInput {
  config: Omit<QueriersConfig, 'durationMs'>;
  warmupMs: number;
  durationMs: number;
  /** the address the name must resolve to */
  expect: string;
}

export interface QueriersProcessResult {
  queriesPerS: number;
  p50Ms: number;
  p99Ms: number;
  utilization: number;
}

const ANSWER_WAIT_MS = 2000;

async function main(): Promise<void> {
  const input = await readInput<QueriersProcessInput>();
  const answer = await resolveOnce(input.config);
  if (answer !== input.expect) throw new Error(`${input.config.name} at ${input.config.server} resolved to ${answer ?? 'nothing'}, not ${input.expect}`);
  await runQueriers({ ...input.config, durationMs: input.warmupMs });
  const r = await runQueriers({ ...input.config, durationMs: input.durationMs });
  const latencies = Array.from(r.latenciesMs);
  const result: QueriersProcessResult = {
    queriesPerS: r.replies / (r.elapsedMs / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    utilization: r.utilization,
  };
  process.stdout.write(JSON.stringify(result));
}

/** The first A record of the answer to one query. */
function resolveOnce(config: Omit<QueriersConfig, 'durationMs'>): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no answer from ${config.server} within ${ANSWER_WAIT_MS} ms`));
    }, ANSWER_WAIT_MS);
    socket.on('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      const a = dnsPacket.decode(reply).answers?.find((x) => x.type === 'A');
      resolve(a?.type === 'A' ? a.data : undefined);
    });
    socket.on('error', reject);
    const query = dnsPacket.encode({ type: 'query', id: 1, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: config.name, type: 'A' }] });
    socket.send(query, config.port, config.server);
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
