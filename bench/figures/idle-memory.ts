// Resident memory of an idle engine, after a few requests have loaded the code that serves them.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext, Figure, Row } from '../figure.js';
import { get } from '../ping.js';
import { processMemory, type ProcessMemory } from '../process-memory.js';

const WARM_UP_PATHS = ['/_ping', '/version', '/info'];
const WARM_UP_ROUNDS = 3;
const IDLE_MS = 2000;

export const idleMemory: Figure = {
  name: 'idle memory',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const berthd = await ctx.startBerthd('memory');
    await warmUp(berthd.socket);
    const referencePid = ctx.reference?.pid ?? null;
    if (ctx.reference && referencePid !== null) await warmUp(ctx.reference.socket);
    await sleep(IDLE_MS);

    const berth = processMemory(berthd.pid);
    const reference = referencePid === null ? null : processMemory(referencePid);
    await berthd.stop();
    ctx.progress(`berth: ${describe(berth)}${reference ? `; reference: ${describe(reference)}` : ''}`);

    const note = reference ? `reference: ${describe(reference)}` : ctx.reference?.pidProblem;
    return [{
      figure: 'idle memory (RSS, daemon + children)',
      unit: 'MiB',
      berth: berth.rssMiB,
      reference: reference?.rssMiB ?? null,
      target: { kind: 'below', limit: 60 },
      ...(note ? { note } : {}),
    }];
  },
};

async function warmUp(socket: string): Promise<void> {
  for (let i = 0; i < WARM_UP_ROUNDS; i++) {
    for (const urlPath of WARM_UP_PATHS) {
      const status = await get(socket, urlPath);
      if (status !== 200) throw new Error(`GET ${urlPath} on ${socket} answered ${status}`);
    }
  }
}

function describe(memory: ProcessMemory): string {
  return memory.processes.map((p) => `${p.name} ${p.rssMiB.toFixed(1)} MiB`).join(' + ');
}
