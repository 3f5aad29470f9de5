// Time to load and to save a ~100 MiB image of three layers that the benchmark makes itself
// (big-image-archive.ts). Each round removes the image first, so every load does the whole work, then
// saves what it loaded; rounds alternate berth and the reference so that drift on the machine hits
// both alike. A first, untimed round warms both up (a fresh berthd has never run this code, nor
// written to its data root). The image is removed from the reference at the end, leaving it as it was.
import type { BenchContext, Figure, Row } from '../figure.js';
import { median } from '../median.js';
import { writeBigImageArchive, type BigImageArchive } from './big-image-archive.js';
import { loadImage, removeImage, saveImage } from './image-transfer.js';

const WARM_UP_ROUNDS = 1;
const ROUNDS = 5;
const MIB = 1024 * 1024;

type Engine = 'berth' | 'reference';
type Samples = Record<'load' | 'save', Record<Engine, number[]>>;

export const imageLoadSave: Figure = {
  name: 'image load and save',
  async measure(ctx: BenchContext): Promise<Row[]> {
    ctx.progress('writing a three-layer image archive');
    const archive = await writeBigImageArchive(ctx.makeDir('image'));
    const size = `${(archive.sizeBytes / MIB).toFixed(0)} MiB in 3 layers`;
    ctx.progress(`${archive.path}: ${size}`);

    const berthd = await ctx.startBerthd('image');
    const engines: [Engine, string, () => void][] = [['berth', berthd.socket, () => berthd.assertRunning()]];
    if (ctx.reference) engines.push(['reference', ctx.reference.socket, () => undefined]);
    const seconds: Samples = { load: { berth: [], reference: [] }, save: { berth: [], reference: [] } };
    try {
      for (let round = 1 - WARM_UP_ROUNDS; round <= ROUNDS; round++) {
        for (const [engine, socket, explainFailure] of engines) {
          const [loadS, saveS] = await loadAndSave(socket, archive).catch((err: unknown) => {
            // a daemon that died says more than the request it broke
            explainFailure();
            throw new Error(`image load and save on ${engine}: ${err instanceof Error ? err.message : String(err)}`);
          });
          const times = `load ${loadS.toFixed(3)} s, save ${saveS.toFixed(3)} s`;
          if (round < 1) {
            ctx.progress(`warm-up ${engine}: ${times}`);
            continue;
          }
          ctx.progress(`round ${round}/${ROUNDS} ${engine}: ${times}`);
          seconds.load[engine].push(loadS);
          seconds.save[engine].push(saveS);
        }
      }
    } catch (err) {
      await leaveReferenceAsFound(ctx, archive).catch((cleanUpErr: unknown) => ctx.progress(String(cleanUpErr)));
      throw err;
    } finally {
      await berthd.stop();
    }
    await leaveReferenceAsFound(ctx, archive);

    const row = (figure: string, samples: Record<Engine, number[]>): Row => ({
      figure,
      unit: 's',
      berth: median(samples.berth),
      reference: samples.reference.length > 0 ? median(samples.reference) : null,
      target: { kind: 'atMostReference' },
      samples,
    });
    return [
      row(`POST /images/load (${size})`, seconds.load),
      row(`GET /images/{name}/get (${size})`, seconds.save),
    ];
  },
};

async function loadAndSave(socket: string, archive: BigImageArchive): Promise<[number, number]> {
  await removeImage(socket, archive.tag);
  const loadMs = await loadImage(socket, archive);
  const saveMs = await saveImage(socket, archive.tag, archive.layerBytes);
  return [loadMs / 1000, saveMs / 1000];
}

async function leaveReferenceAsFound(ctx: BenchContext, archive: BigImageArchive): Promise<void> {
  if (!ctx.reference) return;
  await removeImage(ctx.reference.socket, archive.tag).catch((err: unknown) => {
    throw new Error(`${archive.tag} is left on the reference engine: ${err instanceof Error ? err.message : String(err)}`);
  });
}
