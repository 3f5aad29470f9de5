// Volumes through the docker CLI: `docker run --rm -v NEWVOL:/data busybox true`, a new volume each
// round (its creation is part of the run); `docker create` of a container whose new volume is
// filled with the image's 50 MiB directory (the copy-up is most of the create); and `docker volume
// ls` with 500 volumes, and the same list through the API alone (the CLI's own start is most of
// the CLI's time on either engine). Every volume is named with the figure's prefix and goes at its end.
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { inBatches } from '../engine-api.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';

const WARM_UPS = 1;
const ROUNDS = 9;
const COPY_UP_MIB = 50;
const VOLUMES = 500;
const CREATE_CONCURRENCY = 8;

export const volumes: Figure = {
  name: 'volumes',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'volumes');
    const configDir = ctx.makeDir('docker-config');
    const prefix = setup.namePrefix;
    const bigImage = `${prefix}big:latest`;
    let round = 0;
    const newVolume = () => `${prefix}v${round++}`;
    try {
      const run = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async (engine) => {
        return (await docker(engine.socket, configDir, ['run', '--rm', '-v', `${newVolume()}:/data`, BUSYBOX, 'true'])).ms;
      });

      for (const engine of setup.engines) await makeBigImage(engine, bigImage, `${prefix}maker`);
      const copyUp = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async (engine) => {
        const name = `${prefix}c${round}`;
        const created = await docker(engine.socket, configDir, ['create', '--name', name, '-v', `${newVolume()}:/big`, bigImage, 'true']);
        await engine.api.remove(name);
        return created.ms;
      });

      for (const engine of setup.engines) {
        ctx.progress(`creating ${VOLUMES} volumes on ${engine.name}`);
        await inBatches(Array.from({ length: VOLUMES }, (_, i) => i), CREATE_CONCURRENCY, (i) => engine.api.call('POST', '/volumes/create', [201], { Name: `${prefix}ls${i}` }));
      }
      const listed = new Map<string, number>();
      const list = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async ({ name, socket }) => {
        const ls = await docker(socket, configDir, ['volume', 'ls', '-q']);
        listed.set(name, ls.stdout.split('\n').filter((l) => l.startsWith(`${prefix}ls`)).length);
        return ls.ms;
      });
      if (listed.get('berth') !== VOLUMES) throw new Error(`docker volume ls on berth listed ${listed.get('berth')} of the ${VOLUMES} volumes`);
      // the engine's own share, without the CLI's start (about 12 ms here, on both engines)
      const listApi = await alternateRounds(ctx, setup.engines, { warmUps: WARM_UPS, rounds: ROUNDS, unit: 'ms' }, async ({ api }) => {
        const started = process.hrtime.bigint();
        await api.call('GET', '/volumes', [200]);
        return Number(process.hrtime.bigint() - started) / 1e6;
      });
      return [
        comparedRow('docker run --rm -v NEWVOL:/data busybox true (CLI)', 'ms', run, { kind: 'atMostReference', ratio: 0.5 }),
        comparedRow(`docker create -v NEWVOL:/big, ${COPY_UP_MIB} MiB copied up from the image (CLI)`, 'ms', copyUp, { kind: 'atMostReference', ratio: 1 }),
        comparedRow(`docker volume ls with ${VOLUMES} volumes (CLI)`, 'ms', list, { kind: 'atMostReference', ratio: 0.5 }),
        comparedRow(`GET /volumes with ${VOLUMES} volumes (API)`, 'ms', listApi),
      ];
    } finally {
      for (const engine of setup.engines) await engine.api.call('DELETE', `/images/${bigImage}`, [200, 404]).catch(() => undefined);
      await setup.close();
    }
  },
};

/** An image with COPY_UP_MIB files of 1 MiB in /big, committed from a container that wrote them. */
async function makeBigImage(engine: ContainerEngine, tag: string, maker: string): Promise<void> {
  const id = await engine.api.create({ Image: BUSYBOX, Cmd: ['sh', '-c', `mkdir /big && for i in $(seq ${COPY_UP_MIB}); do head -c 1048576 /dev/urandom > /big/f$i; done`] }, maker);
  await engine.api.start(id);
  if ((await engine.api.wait(id)) !== 0) throw new Error(`making ${tag} on ${engine.name} failed: ${await engine.api.stderr(id)}`);
  const [repo, tagName] = tag.split(':');
  await engine.api.call('POST', `/commit?container=${id}&repo=${encodeURIComponent(repo)}&tag=${tagName}`, [201]);
  await engine.api.remove(id);
}
