// docker commit of a stopped container whose own layer holds 50 MiB (50 files of 1 MiB, random so
// they neither compress nor dedupe), through the CLI, alternating berth and the reference. Each
// round commits the same container to a new tag, then removes the image.
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 1;
const ROUNDS = 5;
const FILES = 50;

export const containerCommit: Figure = {
  name: 'docker commit',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'commit');
    const configDir = ctx.makeDir('docker-config');
    try {
      const name = `${setup.namePrefix}commit`;
      const fill = `for i in $(seq ${FILES}); do head -c 1048576 /dev/urandom > /data-$i; done`;
      for (const e of setup.engines) await docker(e.socket, configDir, ['run', '--name', name, BUSYBOX, 'sh', '-c', fill]);
      let round = 0;
      const samples = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
        const tag = `${setup.namePrefix}committed:${++round}`;
        const ms = (await docker(engine.socket, configDir, ['commit', name, tag])).ms;
        await docker(engine.socket, configDir, ['rmi', tag]);
        return ms / 1000;
      });
      return [comparedRow(`docker commit of a ${FILES} MiB change (CLI)`, 's', samples, { kind: 'atMostReference' })];
    } finally {
      await setup.close();
    }
  },
};
