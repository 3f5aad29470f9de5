// The engines a container figure runs on: a berthd of its own with the tests' busybox image
// loaded, and the reference engine when there is one, with busybox:latest (loaded from the same
// archive, and removed again at the end, if it lacks it). Containers on the shared reference are
// named with a prefix of the run's own, so that only the figure's are removed there; on berth,
// which is the figure's alone, every container is removed at the end (a container left running
// would outlive berthd under its conmon). Networks and volumes a figure makes are named with the
// same prefix and removed after the containers.
import { randomBytes } from 'node:crypto';
import { busyboxImageArchive } from '../test/helpers/busybox-image.js';
import type { BerthdProcess } from './berthd-process.js';
import { EngineApi } from './engine-api.js';
import type { BenchContext } from './figure.js';

export const BUSYBOX = 'busybox:latest';

export type EngineName = 'berth' | 'reference';

export interface ContainerEngine {
  name: EngineName;
  socket: string;
  api: EngineApi;
  /** The network namespace the engine runs in (its "host"), or null when it is not known (no pid for the reference). */
  netns: string | null;
  /** Throws with the end of berthd's log if it has died: that says more than the request it broke. */
  assertRunning(): void;
}

export interface ContainerEngines {
  engines: ContainerEngine[];
  berthd: BerthdProcess;
  /** A prefix for this figure's container names, unique to the run. */
  namePrefix: string;
  /** Creates a bridge network named `${namePrefix}${suffix}` on the engine, removed by close(); its name. */
  createNetwork(engine: ContainerEngine, suffix: string): Promise<string>;
  /** Removes the figure's containers and networks on both engines (and busybox where the figure loaded it), stops berthd. */
  close(): Promise<void>;
}

export async function containerEngines(ctx: BenchContext, label: string): Promise<ContainerEngines> {
  const namePrefix = `bench-${label}-${randomBytes(4).toString('hex')}-`;
  const archive = await busyboxImageArchive(BUSYBOX);
  const berthd = await ctx.startBerthd(label);
  const engines: ContainerEngine[] = [{ name: 'berth', socket: berthd.socket, api: new EngineApi(berthd.socket), netns: berthd.netns, assertRunning: () => berthd.assertRunning() }];
  const networks: Array<{ engine: ContainerEngine; name: string }> = [];
  let loadedIntoReference = false;
  try {
    await engines[0].api.call('POST', '/images/load?quiet=1', [200], archive);
    if (ctx.reference) {
      const netns = ctx.reference.pid === null ? null : `/proc/${ctx.reference.pid}/ns/net`;
      const reference: ContainerEngine = { name: 'reference', socket: ctx.reference.socket, api: new EngineApi(ctx.reference.socket), netns, assertRunning: () => undefined };
      engines.push(reference);
      const found = await reference.api.call('GET', `/images/${BUSYBOX}/json`, [200, 404]);
      if (found.status === 404) {
        ctx.progress(`the reference has no ${BUSYBOX}: loading the tests' busybox`);
        await reference.api.call('POST', '/images/load?quiet=1', [200], archive);
        loadedIntoReference = true;
      }
    }
  } catch (err) {
    await berthd.stop();
    throw err;
  }
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      for (const e of engines) {
        if (e.name === 'berth' && !berthd.running) continue;
        // every container of berth's is the figure's; on the shared reference only the named ones are
        await e.api.removeAll(await e.api.containersNamed(e.name === 'berth' ? '' : namePrefix));
      }
      for (const e of engines) {
        if (e.name === 'berth' && !berthd.running) continue;
        await e.api.removeVolumesNamed(namePrefix);
      }
      for (const { engine, name } of networks) {
        if (engine.name === 'berth' && !berthd.running) continue;
        await engine.api.call('DELETE', `/networks/${name}`, [204, 404]);
      }
      if (loadedIntoReference) await engines[1].api.call('DELETE', `/images/${BUSYBOX}`, [200]);
    } finally {
      for (const e of engines) e.api.close();
      await berthd.stop();
    }
  };
  // also when Ctrl-C stops the run in the middle of the figure
  const takeBack = ctx.atClose(() => (closing ??= close()));
  return {
    engines,
    berthd,
    namePrefix,
    async createNetwork(engine, suffix) {
      const name = `${namePrefix}${suffix}`;
      await engine.api.call('POST', '/networks/create', [201], { Name: name, Driver: 'bridge', CheckDuplicate: true });
      networks.push({ engine, name });
      return name;
    },
    close() {
      takeBack();
      return (closing ??= close());
    },
  };
}
