// Rounds of one measurement on every engine of a container figure, alternating berth and the
// reference so that drift on the machine hits both alike; warm-up rounds come first and are not
// kept. The figure's row is the median of each engine's rounds.
import type { ContainerEngine, EngineName } from './container-engines.js';
import type { BenchContext, Row, Target, Unit } from './figure.js';
import { median } from './median.js';

export type Samples = Record<EngineName, number[]>;

export async function alternateRounds<E extends ContainerEngine>(
  ctx: BenchContext,
  engines: E[],
  opts: { warmUps: number; rounds: number; unit: Unit },
  measure: (engine: E) => Promise<number>,
): Promise<Samples> {
  const samples: Samples = { berth: [], reference: [] };
  for (let round = 1 - opts.warmUps; round <= opts.rounds; round++) {
    for (const engine of engines) {
      const value = await measure(engine).catch((err: unknown) => {
        engine.assertRunning();
        throw err;
      });
      const label = round < 1 ? 'warm-up' : `round ${round}/${opts.rounds}`;
      ctx.progress(`${label} ${engine.name}: ${value.toFixed(opts.unit === 'ms' ? 1 : 3)} ${opts.unit}`);
      if (round >= 1) samples[engine.name].push(value);
    }
  }
  return samples;
}

/** The row of a figure measured on both engines. */
export function comparedRow(figure: string, unit: Unit, samples: Samples, target?: Target, note?: string): Row {
  return {
    figure,
    unit,
    berth: median(samples.berth),
    reference: samples.reference.length > 0 ? median(samples.reference) : null,
    ...(target ? { target } : {}),
    samples,
    ...(note ? { note } : {}),
  };
}
