// Resident memory of an engine with 20 containers running (`sleep 300`), without the containers'
// own processes: berthd, its children (stdin relays, if any) and the conmon of each container,
// against dockerd, containerd and the containerd shim of each container. A container's supervisor
// is the parent of its first process; the figure checks that it is the expected program.
import { setTimeout as sleep } from 'node:timers/promises';
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { inBatches } from '../engine-api.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { combineMemory, parentPid, processesMemory, processMemory, processName, type ProcessMemory } from '../process-memory.js';

const CONTAINERS = 20;
const RUN_CONCURRENCY = 4;
const SETTLE_MS = 2000;
const SUPERVISOR: Record<ContainerEngine['name'], string> = { berth: 'conmon', reference: 'containerd-shim' };

export const runningMemory: Figure = {
  name: 'memory with running containers',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'memory-running');
    try {
      const supervisors = new Map<ContainerEngine['name'], number[]>();
      for (const { name, api } of setup.engines) {
        ctx.progress(`starting ${CONTAINERS} containers on ${name}`);
        const pids = await inBatches(Array.from({ length: CONTAINERS }, (_, i) => i), RUN_CONCURRENCY, async (i) => {
          const id = await api.create({ Image: BUSYBOX, Cmd: ['sleep', '300'] }, `${setup.namePrefix}${i}`);
          await api.start(id);
          return api.pid(id);
        });
        supervisors.set(name, [...new Set(pids.map(parentPid))]);
      }
      await sleep(SETTLE_MS);

      const berth = combineMemory(processMemory(setup.berthd.pid), supervised('berth', supervisors));
      const referencePid = ctx.reference?.pid ?? null;
      const reference = referencePid === null ? null : combineMemory(processMemory(referencePid), supervised('reference', supervisors));
      ctx.progress(`berth: ${describe(berth)}${reference ? `; reference: ${describe(reference)}` : ''}`);
      const note = reference ? `reference: ${describe(reference)}` : ctx.reference?.pidProblem;
      return [{
        figure: `memory with ${CONTAINERS} running containers (RSS, engine processes)`,
        unit: 'MiB',
        berth: berth.rssMiB,
        reference: reference?.rssMiB ?? null,
        target: { kind: 'atMostReference', ratio: 0.5 },
        note: `berth: ${describe(berth)}${note ? `; ${note}` : ''}`,
      }];
    } finally {
      await setup.close();
    }
  },
};

/** The supervisors of one engine's containers, each checked to be the engine's own. */
function supervised(engine: ContainerEngine['name'], supervisors: Map<ContainerEngine['name'], number[]>): ProcessMemory {
  const pids = supervisors.get(engine) ?? [];
  for (const pid of pids) {
    const name = processName(pid);
    if (name === null || !name.startsWith(SUPERVISOR[engine])) throw new Error(`the parent of a ${engine} container is ${name ?? 'gone'} (${pid}), not ${SUPERVISOR[engine]}`);
  }
  if (pids.length !== CONTAINERS) throw new Error(`${CONTAINERS} ${engine} containers have ${pids.length} supervisors`);
  return processesMemory(pids);
}

/** Processes of the same name together: `berthd 60.1 MiB + conmon ×20 40.2 MiB`. */
function describe(memory: ProcessMemory): string {
  const byName = new Map<string, { count: number; rssMiB: number }>();
  for (const p of memory.processes) {
    const entry = byName.get(p.name) ?? { count: 0, rssMiB: 0 };
    byName.set(p.name, { count: entry.count + 1, rssMiB: entry.rssMiB + p.rssMiB });
  }
  return [...byName].map(([name, e]) => `${name}${e.count > 1 ? ` ×${e.count}` : ''} ${e.rssMiB.toFixed(1)} MiB`).join(' + ');
}
