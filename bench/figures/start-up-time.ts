// Time from spawning berthd to its first answer on /_ping, each start on a fresh data root.
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';

const STARTS = 7;
const POLL_MS = 2;

export const startUpTime: Figure = {
  name: 'start-up time',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const seconds: number[] = [];
    for (let i = 1; i <= STARTS; i++) {
      const berthd = ctx.spawnBerthd('start');
      // Stop before recording, so that a start that failed to serve still leaves no daemon behind.
      const ms = await berthd.waitServing(POLL_MS).finally(() => berthd.stop());
      ctx.progress(`start ${i}/${STARTS}: ${ms.toFixed(1)} ms`);
      seconds.push(ms / 1000);
    }
    return [{
      figure: 'berthd start-up (spawn to /_ping)',
      unit: 's',
      berth: median(seconds),
      reference: null,
      target: { kind: 'below', limit: 0.3 },
      samples: { berth: seconds, reference: [] },
      ...(ctx.reference ? { note: 'the reference engine is not restarted by the benchmark' } : {}),
    }];
  },
};
