// npm run bench: takes every figure in figures/all-figures.ts against a berthd of its own and, with
// BENCH_REFERENCE_SOCKET, against Docker's engine; prints a table, or JSON with --json. --figure NAME
// (repeatable) takes only the figures whose names contain NAME.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { BenchSession } from './bench-session.js';
import { evaluate } from './evaluate.js';
import type { BenchContext, Row } from './figure.js';
import { allFigures } from './figures/all-figures.js';
import { formatTable } from './format-table.js';
import { referenceFromEnv } from './reference-engine.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, figure: { type: 'string', multiple: true } } });
  const wanted = values.figure ?? [];
  const figures = wanted.length === 0 ? allFigures : allFigures.filter((f) => wanted.some((w) => f.name.includes(w)));
  const session = new BenchSession();
  // Other work on the machine skews every figure; the load average lets a reader judge a run.
  const loadAverageAtStart = os.loadavg()[0];
  try {
    const reference = await referenceFromEnv(process.env);
    const ctx: BenchContext = {
      startBerthd: (label, extraArgs) => session.startBerthd(label, extraArgs),
      spawnBerthd: (label, extraArgs) => session.spawnBerthd(label, extraArgs),
      makeDir: (label) => session.makeDir(label),
      atClose: (cleanUp) => session.atClose(cleanUp),
      reference,
      progress: (message) => console.error(`bench: ${message}`),
    };
    const rows: Row[] = [];
    for (const figure of figures) {
      ctx.progress(`measuring ${figure.name}`);
      rows.push(...(await figure.measure(ctx)));
    }
    const results = rows.map(evaluate);
    const machine = { cpus: os.availableParallelism(), loadAverage1m: { start: loadAverageAtStart, end: os.loadavg()[0] } };
    if (values.json) {
      console.log(JSON.stringify({ reference: reference?.socket ?? null, machine, figures: results }, null, 2));
    } else {
      console.log(formatTable(results));
      console.log(`\nmachine: ${machine.cpus} CPUs, 1-minute load average ${machine.loadAverage1m.start.toFixed(2)} at the start, ${machine.loadAverage1m.end.toFixed(2)} at the end`);
    }
  } finally {
    await session.close();
  }
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
