// Throughput and latency of cheap endpoints at a fixed concurrency. Rounds alternate berth and the
// reference so that drift on the machine (other load, thermal state) hits both alike.
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';
import { measureLoad, type LoadResult } from '../measure-load.js';

const ENDPOINTS = ['/_ping', '/version'];
const ROUNDS = 3;
const LOAD = { connections: 16, durationS: 5, warmupS: 1 };

type Engine = 'berth' | 'reference';

export const requestLoad: Figure = {
  name: 'request load',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const berthd = await ctx.startBerthd('load');
    const sockets: [Engine, string][] = [['berth', berthd.socket]];
    if (ctx.reference) sockets.push(['reference', ctx.reference.socket]);

    const results = new Map<string, LoadResult[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [engine, socket] of sockets) {
        for (const endpoint of ENDPOINTS) {
          const r = await measureLoad(socket, endpoint, LOAD).catch((err: unknown) => {
            berthd.assertRunning();
            throw err;
          });
          ctx.progress(`round ${round}/${ROUNDS} ${engine} GET ${endpoint}: ${Math.round(r.requestsPerS)} req/s, p50 ${r.latencyP50Ms.toFixed(2)} ms, p99 ${r.latencyP99Ms.toFixed(2)} ms`);
          const key = `${engine} ${endpoint}`;
          results.set(key, [...(results.get(key) ?? []), r]);
        }
      }
    }
    await berthd.stop();

    return ENDPOINTS.flatMap((endpoint) => {
      const pick = (engine: Engine, field: keyof LoadResult): number[] => (results.get(`${engine} ${endpoint}`) ?? []).map((r) => r[field]);
      const row = (figure: string, unit: Row['unit'], field: keyof LoadResult): Row => {
        const berth = pick('berth', field);
        const reference = pick('reference', field);
        return {
          figure: `GET ${endpoint} ${figure}`,
          unit,
          berth: median(berth),
          reference: reference.length > 0 ? median(reference) : null,
          samples: { berth, reference },
        };
      };
      return [
        { ...row('throughput', 'req/s', 'requestsPerS'), target: { kind: 'atLeastReference' } },
        row('latency p50', 'ms', 'latencyP50Ms'),
        row('latency p99', 'ms', 'latencyP99Ms'),
      ];
    });
  },
};
