// Push and pull of a ~100 MiB image of three layers (busybox's, and two of 50 MiB of random bytes,
// which gzip can't shrink) through the docker CLI, each engine with a registry of its own in its
// own network namespace on loopback. A push goes to an emptied registry; a pull is cold: the
// image's own two layers are gone from the engine first (busybox's stays, on both).
import { BUSYBOX, containerEngines, type ContainerEngine } from '../container-engines.js';
import { docker } from '../docker-cli.js';
import { alternateRounds, comparedRow } from '../engine-rounds.js';
import type { BenchContext, Figure, Row } from '../figure.js';
import { RegistryProcess } from '../registry-process.js';

const ROUNDS = 3;
const LAYER_MIB = 50;
const PORT = 5055;

export const registryTransfer: Figure = {
  name: 'registry push and pull',
  async measure(ctx: BenchContext): Promise<Row[]> {
    const setup = await containerEngines(ctx, 'registry');
    const configDir = ctx.makeDir('docker-config');
    const registries = new Map<string, RegistryProcess>();
    const takeBack = ctx.atClose(async () => {
      for (const r of registries.values()) await r.stop();
    });
    const images = new Map<string, string>();
    try {
      for (const engine of setup.engines) {
        if (engine.netns === null) throw new Error(`the ${engine.name} engine's network namespace is not known`);
        const registry = new RegistryProcess(engine.netns, ctx.makeDir(`registry-${engine.name}`), PORT);
        await registry.start();
        registries.set(engine.name, registry);
        ctx.progress(`making a ${2 * LAYER_MIB + 2} MiB image on ${engine.name}`);
        images.set(engine.name, await makeImage(engine, configDir, `${registry.host}/${setup.namePrefix}big:1`, setup.namePrefix));
      }
      const push = await alternateRounds(ctx, setup.engines, { warmUps: 0, rounds: ROUNDS, unit: 's' }, async (engine) => {
        await (registries.get(engine.name) as RegistryProcess).empty();
        return (await docker(engine.socket, configDir, ['push', images.get(engine.name) as string])).ms / 1000;
      });
      const pull = await alternateRounds(ctx, setup.engines, { warmUps: 0, rounds: ROUNDS, unit: 's' }, async (engine) => {
        const image = images.get(engine.name) as string;
        await docker(engine.socket, configDir, ['rmi', image]);
        return (await docker(engine.socket, configDir, ['pull', image])).ms / 1000;
      });
      return [
        comparedRow(`docker pull, ${2 * LAYER_MIB + 2} MiB in 3 gzip layers, cold (CLI, registry on loopback)`, 's', pull, { kind: 'atMostReference', ratio: 0.8 }),
        comparedRow(`docker push of the same image to an empty registry (CLI)`, 's', push, { kind: 'atMostReference', ratio: 1 }),
      ];
    } finally {
      for (const [name, image] of images) {
        const engine = setup.engines.find((e) => e.name === name) as ContainerEngine;
        await docker(engine.socket, configDir, ['rmi', '-f', image]).catch(() => undefined);
      }
      for (const r of registries.values()) await r.stop();
      takeBack();
      await setup.close();
    }
  },
};

/** Two layers of random bytes over busybox, committed one after the other; the image's name. */
async function makeImage(engine: ContainerEngine, configDir: string, name: string, prefix: string): Promise<string> {
  let base = BUSYBOX;
  for (const layer of ['a', 'b']) {
    const container = `${prefix}make-${layer}`;
    await docker(engine.socket, configDir, ['run', '--name', container, base, 'sh', '-c', `head -c ${LAYER_MIB * 1024 * 1024} /dev/urandom > /${layer}`]);
    const tag = layer === 'b' ? name : `${prefix}layer-${layer}:1`;
    await docker(engine.socket, configDir, ['commit', container, tag]);
    await docker(engine.socket, configDir, ['rm', container]);
    base = tag;
  }
  await docker(engine.socket, configDir, ['rmi', `${prefix}layer-a:1`]);
  return name;
}
