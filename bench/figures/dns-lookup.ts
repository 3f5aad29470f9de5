// The embedded DNS server answering a container name: queries per second and p99 latency with 50
// UDP queriers in a closed loop on loopback. The server runs in this process, as in berthd, and
// the queriers in a worker thread on the other core. The targets: p99 within 1 ms on an
// idle machine, and at least dockerd's queries per second (Docker's resolver listens inside each
// container's namespace, which this figure does not enter: container-dns compares the two). In a
// closed loop the mean wait is the queriers' number over the rate (Little's law): 50 queriers at
// 80,000 queries/s wait 0.6 ms on average whatever the server does per query, so the progress lines
// show how busy each thread is, to tell the server's cost from the queue.
import { Worker } from 'node:worker_threads';
import { DnsRegistry } from '../../src/network/dns/dns-registry.js';
import { DnsServer } from '../../src/network/dns/dns-server.js';
import type { QueriersConfig, QueriersResult } from '../dns-queriers.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median, percentile } from '../median.js';

const SERVER = '127.53.9.1';
const QUERIER = '127.53.9.10';
const ROUNDS = 5;
const ROUND_MS = 2000;
const WARMUP_MS = 1000;
const QUERIERS = 50;

export const dnsLookup: Figure = {
  name: 'dns lookup',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const records = new DnsRegistry();
    records.addNetwork('bench', 'bench');
    records.addEndpoint('bench', { containerId: 'b'.repeat(64), containerName: 'querier', ipv4: QUERIER });
    records.addEndpoint('bench', { containerId: 'a'.repeat(64), containerName: 'web', ipv4: '10.53.0.2' });
    const server = new DnsServer({ records, upstreams: () => [] });
    await server.listen(SERVER);
    const rates: number[] = [];
    const p99s: number[] = [];
    try {
      const config = { server: SERVER, port: 53, from: QUERIER, name: 'web', queriers: QUERIERS };
      await runQueriers({ ...config, durationMs: WARMUP_MS });
      for (let round = 1; round <= ROUNDS; round++) {
        const serverBusy = performance.eventLoopUtilization();
        const r = await runQueriers({ ...config, durationMs: ROUND_MS });
        const serverUtilization = performance.eventLoopUtilization(serverBusy).utilization;
        const latencies = Array.from(r.latenciesMs);
        const rate = r.replies / (r.elapsedMs / 1000);
        const p99 = percentile(latencies, 99);
        rates.push(rate);
        p99s.push(p99);
        const serverUs = (serverUtilization * r.elapsedMs * 1000) / r.replies;
        ctx.progress(`round ${round}/${ROUNDS}: ${Math.round(rate)} queries/s, p50 ${percentile(latencies, 50).toFixed(3)} ms, p99 ${p99.toFixed(3)} ms; busy: server ${pct(serverUtilization)} (${serverUs.toFixed(1)} µs a query), queriers ${pct(r.utilization)}`);
      }
    } finally {
      await server.closeAll();
    }
    const figure = `DNS A query for a container name, ${QUERIERS} UDP queriers`;
    const note = 'berth only, in process: the comparison with Docker\'s resolver is taken from inside a container (below)';
    return [
      { figure: `${figure}, throughput`, unit: 'req/s', berth: median(rates), reference: null, target: { kind: 'atLeastReference' }, samples: { berth: rates, reference: [] }, note },
      { figure: `${figure}, latency p99`, unit: 'ms', berth: median(p99s), reference: null, target: { kind: 'below', limit: 1 }, samples: { berth: p99s, reference: [] } },
    ];
  },
};

const pct = (share: number) => `${Math.round(share * 100)} %`;

function runQueriers(config: QueriersConfig): Promise<QueriersResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../dns-queriers.js', import.meta.url), { workerData: config });
    worker.once('message', (m: QueriersResult | { error: string }) => ('error' in m ? reject(new Error(m.error)) : resolve(m)));
    worker.once('error', reject);
  });
}
