// docker cp of a 100 MiB directory (100 files of 1 MiB) into a running container and out of it,
// through the CLI, alternating berth and the reference. Each round copies into the same directory
// (replacing the files, so the container's layer does not grow) and out to a fresh host directory.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUSYBOX, containerEngines } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 1;
const ROUNDS = 5;
const FILES = 100;
const FILE_BYTES = 1024 * 1024;

export const containerCopy: Figure = {
  name: 'docker cp',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'copy');
    const configDir = ctx.makeDir('docker-config');
    const work = ctx.makeDir('copy');
    const data = path.join(work, 'data');
    mkdirSync(data);
    for (let i = 0; i < FILES; i++) writeFileSync(path.join(data, `f${i}`), randomBytes(FILE_BYTES));
    try {
      const name = `${setup.namePrefix}cp`;
      for (const e of setup.engines) await docker(e.socket, configDir, ['run', '-d', '--name', name, BUSYBOX, 'sleep', '3600']);
      const into = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
        return (await docker(engine.socket, configDir, ['cp', data, `${name}:/tmp/`])).ms / 1000;
      });
      const out = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 's' }, async (engine) => {
        const dest = path.join(work, `out-${engine.name}`);
        rmSync(dest, { recursive: true, force: true });
        const s = (await docker(engine.socket, configDir, ['cp', `${name}:/tmp/data`, dest])).ms / 1000;
        rmSync(dest, { recursive: true, force: true });
        return s;
      });
      return [
        comparedRow('docker cp 100 MiB (100 files) into a running container', 's', into, { kind: 'atMostReference' }),
        comparedRow('docker cp 100 MiB (100 files) out of a running container', 's', out, { kind: 'atMostReference' }),
      ];
    } finally {
      await setup.close();
    }
  },
};
