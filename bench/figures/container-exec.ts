// `docker exec CTR true` through the docker CLI, from spawn to exit: the exec's create, its start
// (a hijacked stream) and the inspect for its exit code, in a running busybox container, as a
// user sees them. The container keeps Docker's default seccomp profile, which runc compiles for
// every exec; a second row without it shows what that costs, on both engines alike.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 2;
const ROUNDS = 15;

export const containerExec: Figure = {
  name: 'docker exec',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'exec');
    const configDir = ctx.makeDir('docker-config');
    try {
      const rows: Row[] = [];
      for (const [label, options] of [
        ['', []],
        [', seccomp=unconfined', ['--security-opt', 'seccomp=unconfined']],
      ] as const) {
        const name = `${setup.namePrefix}exec${options.length}`;
        for (const e of setup.engines) await docker(e.socket, configDir, ['run', '-d', '--name', name, ...options, BUSYBOX, 'sleep', '3600']);
        const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async (engine) => {
          return (await docker(engine.socket, configDir, ['exec', name, 'true'])).ms;
        });
        rows.push(comparedRow(`docker exec CTR true (CLI${label})`, 'ms', samples, label === '' ? { kind: 'atMostReference', ratio: 0.5 } : undefined));
      }
      return rows;
    } finally {
      await setup.close();
    }
  },
};
