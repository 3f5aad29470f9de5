// The images area as the daemon builds it: start-up sweeps and collects what interrupted
// operations left, and the three faces (api, store, inventory) answer over one store. The
// ContainerUsage port cannot be left out: tsc refuses the call below.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { pino, type Logger } from 'pino';
import { dockerSaveArchive, makeImage, tarOf } from '../../test/helpers/image-archives.js';
import type { ContainerUsage } from '../container/container-usage.js';
import { EventBus } from '../events/event-bus.js';
import type { ProgressSink } from '../lib/stream-session.js';
import { createImages } from './create-images.js';
import type { Digest } from './digest.js';
import { NoSuchImageError } from './image-errors.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'berth-images-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const log = pino({ level: 'silent' });

/** Never called: tsc fails the build if `usage` ever becomes optional. */
export function createImagesWithoutUsage(dataRoot: string, events: EventBus, logger: Logger) {
  // @ts-expect-error images must be told which containers use them
  return createImages({ dataRoot, events, log: logger, registry: NO_REGISTRY });
}


/** no registry is asked in these tests */
const NO_REGISTRY = { settings: { insecureRegistries: [], mirrors: [], certsDir: '/nonexistent' }, maxConcurrentDownloads: 3, maxConcurrentUploads: 5 };
/** What containers use: `users` per image ID, and no root filesystem. */
function usageOf(users: Map<string, string[]>): ContainerUsage {
  return { imageUsers: (id) => ({ active: [], inactive: users.get(id) ?? [] }), layersInUse: () => [], volumeUsers: () => [] };
}

/** A sink that keeps each message as dockerd's JSON would name it. */
function collector(): ProgressSink & { messages: unknown[] } {
  const messages: unknown[] = [];
  return {
    messages,
    stream: async (text) => void messages.push({ stream: text }),
    status: async (text, id) => void messages.push({ status: text, id }),
    progress: async (id, action, current, total) => void messages.push({ id, action, current, total }),
    aux: async (value) => void messages.push({ aux: value }),
  };
}

describe('createImages', () => {
  it('sweeps its staging folder and collects blobs no image names', () => {
    const dataRoot = path.join(scratch, 'leftovers');
    mkdirSync(path.join(dataRoot, 'staging', 'image', 'load-0123'), { recursive: true });
    const orphan = path.join(dataRoot, 'image', 'blobs', 'sha256', 'a'.repeat(64));
    mkdirSync(path.dirname(orphan), { recursive: true });
    writeFileSync(orphan, 'left by an interrupted load');

    const images = createImages({ dataRoot, events: new EventBus(), log, usage: usageOf(new Map()), registry: NO_REGISTRY });
    assert.deepEqual(readdirSync(path.join(dataRoot, 'staging', 'image')), []);
    assert.equal(existsSync(orphan), false);
    assert.equal(images.inventory.count(), 0);
    assert.deepEqual(images.inventory.dataUsage(), { layersSizeBytes: 0, images: [] });
    assert.throws(() => images.store.get('busybox'), (err) => err instanceof NoSuchImageError && err.message === 'No such image: busybox:latest');
  });

  it('loads through the api, and shows the image to containers and to the inventory with its users', async () => {
    const image = makeImage([await tarOf([{ name: 'hello', content: 'hi' }])], { repoTags: ['area/test:1'] });
    const users = new Map<string, string[]>();
    const images = createImages({ dataRoot: path.join(scratch, 'load'), events: new EventBus(), log, usage: usageOf(users), registry: NO_REGISTRY });

    const out = collector();
    await images.api.load().run({ out, input: Readable.from(await dockerSaveArchive([image])), signal: new AbortController().signal });
    assert.deepEqual(out.messages, [{ stream: 'Loaded image: area/test:1\n' }]);

    const found = images.store.get('area/test:1');
    assert.equal(found.id, image.id);
    const dirs = images.store.layerDirs(found);
    assert.equal(dirs.length, 1);
    assert.ok(existsSync(path.join(dirs[0], 'hello')));

    users.set(image.id, ['c0ffee']);
    const usage = images.inventory.dataUsage();
    assert.equal(usage.layersSizeBytes, 2);
    assert.deepEqual(usage.images.map((i) => [i.image.id, i.sharedSizeBytes, i.containers]), [[image.id as Digest, 0, 1]]);
  });
});
