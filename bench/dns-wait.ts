// Waits for a name to resolve, run by the swarm DNS figure with node inside a container's network
// namespace (nodeIn): an A query to the container's resolver every pollMs, one at a time, until one
// answers with addresses. Prints, as JSON, the wall-clock times (ms since the epoch, with fractions)
// of the first query and of that answer's arrival, so that the figure can compare them with an
// engine's event times; no answer in timeoutMs fails the run.
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import dnsPacket from 'dns-packet';
import { readInput } from './netns.js';

export interface DnsWaitInput {
  server: string;
  name: string;
  pollMs: number;
  timeoutMs: number;
}

export interface DnsWaitResult {
  firstQueryAtMs: number;
  answeredAtMs: number;
  addresses: string[];
  queries: number;
}

/** a reply later than this counts as none; the next query goes */
const REPLY_WAIT_MS = 200;

const wallMs = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const input = await readInput<DnsWaitInput>();
  const socket = dgram.createSocket('udp4');
  let waiting: { id: number; resolve: (answer: dnsPacket.Packet | undefined) => void } | undefined;
  socket.on('message', (msg) => {
    const packet = dnsPacket.decode(msg);
    if (waiting !== undefined && packet.id === waiting.id) waiting.resolve(packet);
  });
  const query = (id: number) =>
    new Promise<dnsPacket.Packet | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), REPLY_WAIT_MS);
      waiting = {
        id,
        resolve: (answer) => {
          clearTimeout(timer);
          waiting = undefined;
          resolve(answer);
        },
      };
      socket.send(dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: input.name, type: 'A' }] }), 53, input.server);
    });
  const firstQueryAtMs = wallMs();
  const deadlineMs = firstQueryAtMs + input.timeoutMs;
  try {
    for (let queries = 1; ; queries++) {
      const sentMs = wallMs();
      const answer = await query(queries & 0xffff);
      const addresses = (answer?.answers ?? []).flatMap((a) => (a.type === 'A' ? [a.data] : []));
      if (addresses.length > 0) {
        const result: DnsWaitResult = { firstQueryAtMs, answeredAtMs: wallMs(), addresses, queries };
        process.stdout.write(JSON.stringify(result));
        return;
      }
      if (wallMs() > deadlineMs) throw new Error(`${input.name} did not resolve at ${input.server} within ${input.timeoutMs} ms (${queries} queries)`);
      await sleep(Math.max(0, sentMs + input.pollMs - wallMs()));
    }
  } finally {
    socket.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
