// `docker run --rm busybox true` through the docker CLI, from spawn to exit: create, attach, wait,
// start, the container's run and its removal, as a user sees them. The container is on the default
// bridge, as `docker run` puts it; the same run with `--network none` and with a published port
// (`-p`) are beside it without targets, to show what networking costs on each engine.
//
// Then where berth's milliseconds go on the bridge: its networking steps are timed one by one by
// berthd's own code in a scratch namespace (bench/network-steps.ts, with the CNI lists berthd builds
// for its default bridge's record), and the rest is the run's median less their medians: the
// namespace made and loopback up, the CNI ADD (bridge + static IPAM), the DEL, the namespace
// removed, and what portmap adds to ADD and DEL when a port is published.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { NetworkRecord } from '../../src/network/network-record.js';
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';
import type { NetworkStepsInput, NetworkStepsResult } from '../network-steps.js';
import { createNetns, nodeIn, removeNetns } from '../netns.js';

const WARM_UPS = 1;
const ROUNDS = 9;
const STEP_ROUNDS = 9;
const STEPS_TIMEOUT_MS = 120_000;
const PUBLISHED_PORT = 18080;

export const containerRun: Figure = {
  name: 'docker run --rm',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'run');
    const configDir = ctx.makeDir('docker-config');
    try {
      const run = (options: string[]) =>
        alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async (engine) => {
          return (await docker(engine.socket, configDir, ['run', '--rm', ...options, BUSYBOX, 'true'])).ms;
        });
      const bridge = await run([]);
      const none = await run(['--network', 'none']);
      const published = await run(['-p', `${PUBLISHED_PORT}:80`]);
      ctx.progress('timing berth\'s networking steps in a scratch namespace');
      const steps = await networkSteps(ctx, defaultBridgeRecord(path.join(setup.berthd.dir, 'root')));
      return [
        comparedRow('docker run --rm busybox true (CLI, default bridge)', 'ms', bridge, { kind: 'atMostReference', ratio: 0.4 }),
        comparedRow('docker run --rm --network none busybox true (CLI)', 'ms', none),
        comparedRow(`docker run --rm -p ${PUBLISHED_PORT}:80 busybox true (CLI)`, 'ms', published),
        ...breakdown(median(bridge.berth), steps),
      ];
    } finally {
      await setup.close();
    }
  },
};

/** The default bridge's record in berthd's data root (network-store.ts: one JSON file a network). */
function defaultBridgeRecord(dataRoot: string): NetworkRecord {
  const dir = path.join(dataRoot, 'network', 'networks');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const record = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as NetworkRecord;
    if (record.name === 'bridge') return record;
  }
  throw new Error(`no default bridge record in ${dir}`);
}

async function networkSteps(ctx: BenchContext, network: NetworkRecord): Promise<NetworkStepsResult> {
  const dir = ctx.makeDir('steps');
  const scratch = createNetns(path.join(dir, 'host.netns'));
  try {
    const input: NetworkStepsInput = { network, dir: path.join(dir, 'netns'), rounds: STEP_ROUNDS, port: { hostPort: PUBLISHED_PORT, containerPort: 80, protocol: 'tcp' } };
    return await nodeIn<NetworkStepsResult>(scratch, 'network-steps', input, STEPS_TIMEOUT_MS);
  } finally {
    removeNetns(scratch);
  }
}

/** berth's run on the bridge, step by step (medians); rows without a reference or a target. */
function breakdown(runMs: number, steps: NetworkStepsResult): Row[] {
  const parts: Array<[string, number[]]> = [
    ['network namespace made, loopback up (netns.ts)', steps.createNetnsMs],
    ['CNI ADD, bridge + static', steps.addMs],
    ['CNI DEL', steps.delMs],
    ['network namespace removed', steps.removeNetnsMs],
  ];
  const rows: Row[] = parts.map(([label, ms]) => step(label, median(ms), ms));
  const networking = rows.reduce((sum, r) => sum + r.berth, 0);
  const portmap = steps.addWithPortMs.map((add, i) => add + steps.delWithPortMs[i] - steps.addMs[i] - steps.delMs[i]);
  return [
    ...rows,
    step('everything else (the run less the four above)', runMs - networking),
    step('portmap\'s share of ADD + DEL, one published port (not in a run without -p)', median(portmap), portmap),
  ];
}

function step(label: string, ms: number, samples?: number[]): Row {
  return { figure: `  berth's run on the bridge: ${label}`, unit: 'ms', berth: ms, reference: null, ...(samples ? { samples: { berth: samples, reference: [] } } : {}) };
}
