// Closed-loop DNS queriers, run in a worker thread (dns-lookup) or a process of their own in a
// container's network namespace (container-dns, through dns-queriers-process.ts) so that the server
// under test keeps its own core: each UDP socket sends a query, waits for the reply, and sends the
// next, for a fixed time.
// Kept cheap (one encoded query per socket, its ID rewritten; no timer per query) so that the
// queriers are not what limits the rate. Posts back how many replies came and their latencies.
import dgram from 'node:dgram';
import { parentPort, workerData } from 'node:worker_threads';
import dnsPacket from 'dns-packet';

export interface QueriersConfig {
  server: string;
  port: number;
  /** The source address: the querying container's; any when omitted (the kernel picks the route's). */
  from?: string;
  name: string;
  queriers: number;
  durationMs: number;
}

export interface QueriersResult {
  replies: number;
  elapsedMs: number;
  latenciesMs: Float64Array;
  /** The share of the time the queriers' thread was busy: near 1, they limit the rate. */
  utilization: number;
}

/** A reply later than this fails the run. */
const WAIT_MS = 1000;

export async function runQueriers(config: QueriersConfig): Promise<QueriersResult> {
  const latencies: number[] = [];
  const start = performance.now();
  const busyBefore = performance.eventLoopUtilization();
  const until = start + config.durationMs;
  await Promise.all(Array.from({ length: config.queriers }, (_, i) => querier(config, i, until, latencies)));
  const utilization = performance.eventLoopUtilization(busyBefore).utilization;
  return { replies: latencies.length, elapsedMs: performance.now() - start, latenciesMs: Float64Array.from(latencies), utilization };
}

function querier(config: QueriersConfig, index: number, until: number, latencies: number[]): Promise<void> {
  const query = dnsPacket.encode({ type: 'query', id: 0, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: config.name, type: 'A' }] });
  const socket = dgram.createSocket('udp4');
  let id = index * 1000;
  let sent = 0;
  return new Promise((resolve, reject) => {
    const stop = (err?: Error) => {
      clearInterval(watchdog);
      socket.close();
      if (err) reject(err);
      else resolve();
    };
    const send = () => {
      id = (id + 1) & 0xffff;
      query.writeUInt16BE(id, 0);
      sent = performance.now();
      socket.send(query, config.port, config.server);
    };
    const watchdog = setInterval(() => performance.now() - sent > WAIT_MS && stop(new Error(`no reply within ${WAIT_MS} ms`)), WAIT_MS);
    socket.on('message', (reply) => {
      const now = performance.now();
      if (reply.readUInt16BE(0) !== id) return stop(new Error(`reply ${reply.readUInt16BE(0)} to query ${id}`));
      latencies.push(now - sent);
      if (now < until) send();
      else stop();
    });
    socket.bind(0, config.from, send);
  });
}

if (parentPort) {
  const port = parentPort;
  runQueriers(workerData as QueriersConfig).then(
    (result) => port.postMessage(result),
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
  );
}
