// Throughput of the swarm EndpointRecord codec, in records per second, on a record with 4 ports
// and 4 aliases: what the gossip layer will be able to send and take in on one core. Decoding
// includes the strict wire check that every record from a peer goes through.
import { decodeEndpointRecord, encodeEndpointRecord } from '../../src/swarm/endpoint-record.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';

const ROUNDS = 7;
const ROUND_MS = 300;

const RECORD = decodeEndpointRecord(
  encodeEndpointRecord({
    name: 'web.3.kq2m4r7d0pq1x8e5t6y7u9i0o',
    serviceName: 'web',
    serviceId: 'kq2m4r7d0pq1x8e5t6y7u9i0o',
    virtualIp: '10.0.1.2',
    endpointIp: '10.0.1.17',
    ingressPorts: [
      { name: 'http', targetPort: 80, publishedPort: 8080 },
      { name: 'https', targetPort: 443, publishedPort: 8443 },
      { name: 'dns', protocol: 1, targetPort: 53, publishedPort: 30053 },
      { name: 'metrics', targetPort: 9100, publishedPort: 30100 },
    ],
    aliases: ['web', 'frontend', 'www', 'site'],
    taskAliases: ['web.3'],
  }),
);
const BYTES = encodeEndpointRecord(RECORD);

export const endpointRecordCodec: Figure = {
  name: 'endpoint record codec',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const encode = rates(() => encodeEndpointRecord(RECORD));
    const decode = rates(() => decodeEndpointRecord(BYTES));
    ctx.progress(`encode ${median(encode).toFixed(0)} records/s, decode ${median(decode).toFixed(0)} records/s (${BYTES.length} bytes each)`);
    const row = (what: string, samples: number[]): Row => ({
      figure: `EndpointRecord ${what} (4 ports, 4 aliases, ${BYTES.length} B)`,
      unit: 'records/s',
      berth: median(samples),
      reference: null,
      samples: { berth: samples, reference: [] },
      note: 'no target yet: for the gossip layer to come',
    });
    return [row('encode', encode), row('decode', decode)];
  },
};

/** Records per second in each of ROUNDS rounds, after one round to warm the JIT. */
function rates(work: () => unknown): number[] {
  const out: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    let n = 0;
    const start = process.hrtime.bigint();
    const until = start + BigInt(ROUND_MS) * 1_000_000n;
    let now = start;
    while (now < until) {
      for (let i = 0; i < 100; i++) work();
      n += 100;
      now = process.hrtime.bigint();
    }
    if (round > 0) out.push(n / (Number(now - start) / 1e9));
  }
  return out;
}
