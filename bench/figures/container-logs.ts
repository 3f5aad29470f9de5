// docker logs of a stopped container that wrote 200 000 short lines, through the CLI (which
// demultiplexes the frames and writes them out), alternating berth and the reference.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 1;
const ROUNDS = 5;
const LINES = 200_000;

export const containerLogs: Figure = {
  name: 'docker logs',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'logs');
    const configDir = ctx.makeDir('docker-config');
    try {
      const name = `${setup.namePrefix}logs`;
      const write = `i=0; while [ $i -lt ${LINES} ]; do echo "log line $i of the benchmark"; i=$((i+1)); done`;
      for (const e of setup.engines) await docker(e.socket, configDir, ['run', '-d', '--name', name, BUSYBOX, 'sh', '-c', write]);
      for (const e of setup.engines) await docker(e.socket, configDir, ['wait', name]);
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
        return (await docker(engine.socket, configDir, ['logs', name])).ms / 1000;
      });
      return [comparedRow(`docker logs of ${LINES / 1000}k lines (CLI)`, 's', samples, { kind: 'atMostReference', ratio: 0.5 })];
    } finally {
      await setup.close();
    }
  },
};
