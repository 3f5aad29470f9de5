// `docker swarm init --advertise-addr ADDR` through the docker CLI, as a user runs it, timed from
// the command's spawn to its exit: on berth, a node with an address on an underlay of its own
// (bench/swarm-nodes.ts); on the reference, an address added to its namespace for the figure
// (bench/reference-swarm.ts). Each round inits, checks that the engine manages a swarm, and leaves
// it again (`docker swarm leave --force`, not timed), so every round after the first inits a node
// that has left a swarm; the first round's times, on a daemon that never was in one, are in the note.
// The reference's rounds take one of two times, about 0.5 s apart (here about 140 ms or 550–650 ms):
// its init waits until its own agent has registered with the manager it has just started, and the
// agent either finds that manager at once or tries again 0.5 s later (dockerd's log: "dispatcher
// starting", then "manager selected by agent for new session" at once or 0.5 s after); so its
// median is either, as the rounds fall, and the note gives their range.
import type { ContainerEngine, EngineName } from '../container-engines.js';
import type { CliRun } from '../docker-cli.js';
import type { EngineApi } from '../engine-api.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { referenceSwarmHost } from '../reference-swarm.js';
import { startSwarmNodes } from '../swarm-nodes.js';

const ROUNDS = 7;

export const swarmInit: Figure = {
  name: 'swarm init',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const configDir = ctx.makeDir('docker-config');
    const swarm = await startSwarmNodes(ctx, 'swarm-init', 1);
    try {
      const reference = await referenceSwarmHost(ctx, configDir);
      try {
        const [node] = swarm.nodes;
        const engines: ContainerEngine[] = [{ name: 'berth', socket: node.berthd.socket, api: node.api, netns: node.berthd.netns, assertRunning: () => node.berthd.assertRunning() }];
        const advertiseAddr = new Map<EngineName, string>([['berth', node.addr]]);
        const cli = new Map<EngineName, (args: string[]) => Promise<CliRun>>([['berth', node.docker]]);
        if (reference !== null && 'engine' in reference) {
          engines.push(reference.engine);
          advertiseAddr.set('reference', reference.advertiseAddr);
          cli.set('reference', reference.docker);
        } else if (reference !== null) {
          ctx.progress(reference.skipped);
        }
        const samples = await alternateRounds(ctx, engines, { warmUps: 0, rounds: ROUNDS, unit: 'ms' }, async (engine) => {
          const docker = cli.get(engine.name) as (args: string[]) => Promise<CliRun>;
          const init = await docker(['swarm', 'init', '--advertise-addr', advertiseAddr.get(engine.name) as string]);
          await assertManaging(engine.name, engine.api);
          await docker(['swarm', 'leave', '--force']);
          return init.ms;
        });
        const ref = samples.reference;
        const first = ref.length > 0 ? `berth ${samples.berth[0].toFixed(0)} ms, the reference ${ref[0].toFixed(0)} ms` : `${samples.berth[0].toFixed(0)} ms`;
        const range = ref.length > 0 ? `; the reference's rounds from ${Math.min(...ref).toFixed(0)} to ${Math.max(...ref).toFixed(0)} ms` : '';
        const skipped = reference !== null && 'skipped' in reference ? `; ${reference.skipped}` : '';
        return [comparedRow('docker swarm init --advertise-addr (CLI), a leave between rounds', 'ms', samples, undefined, `the first init on a daemon that never was in a swarm: ${first}${range}${skipped}`)];
      } finally {
        if (reference !== null && 'engine' in reference) await reference.close();
      }
    } finally {
      await swarm.close();
    }
  },
};

/** Throws unless the engine says it is an active manager: a failed init never becomes a figure. */
async function assertManaging(name: EngineName, api: EngineApi): Promise<void> {
  const info = JSON.parse((await api.call('GET', '/info', [200])).text) as { Swarm: { LocalNodeState: string; ControlAvailable: boolean } };
  if (info.Swarm.LocalNodeState !== 'active' || !info.Swarm.ControlAvailable) throw new Error(`${name} after swarm init: LocalNodeState ${info.Swarm.LocalNodeState}, ControlAvailable ${info.Swarm.ControlAvailable}`);
}
