// ContainerService.create is the one typed entry point the API, the builder's steps and swarm's
// tasks make containers through. Here the areas are wired in-process, as the daemon wires them,
// and a container is made, run and removed with no HTTP in between.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { decodeCreateBody } from '../../../src/container/config/create-body.js';
import { normalizeCreate } from '../../../src/container/config/normalize-create.js';
import { daemonCreateLimits } from '../../../src/container/config/create-limits.js';
import { createContainerStore } from '../../../src/container/create-container-store.js';
import { createContainers } from '../../../src/container/create-containers.js';
import { EngineMetrics } from '../../../src/metrics/engine-metrics.js';
import { EventBus } from '../../../src/events/event-bus.js';
import { createImages } from '../../../src/image/create-images.js';
import { createVolumes } from '../../../src/volume/create-volumes.js';
import { createNetworks } from '../../../src/network/create-networks.js';
import { createRootfs } from '../../../src/rootfs/create-rootfs.js';
import { tempDir } from '../../helpers/berthd.js';
import { busyboxImageArchive } from '../../helpers/busybox-image.js';
import { sweep } from '../../helpers/containers.js';

describe('ContainerService.create, without HTTP', () => {
  const dir = tempDir('berth-create-path-');
  const dataRoot = path.join(dir, 'root');
  const log = pino({ level: 'silent' });
  const events = new EventBus();
  let images: ReturnType<typeof createImages>;
  let containers: Awaited<ReturnType<typeof createContainers>>;
  let networks: Awaited<ReturnType<typeof createNetworks>>;

  before(async () => {
    const rootfs = createRootfs({ dataRoot, log });
    const execRoot = path.join(dir, 'exec');
    const records = createContainerStore({ dataRoot, execRoot, rootfs });
    images = createImages({ dataRoot, events, log, usage: records.usage, registry: { settings: { insecureRegistries: [], mirrors: [], certsDir: path.join(dir, 'certs.d') }, maxConcurrentDownloads: 3, maxConcurrentUploads: 5 } });
    const lines: string[] = [];
    const progress = {
      stream: async (text: string) => void lines.push(text),
      status: async () => undefined,
      progress: async () => undefined,
      aux: async () => undefined,
    };
    await images.api.load().run({ out: progress, input: Readable.from([await busyboxImageArchive()]), signal: new AbortController().signal });
    assert.deepEqual(lines, ['Loaded image: busybox:latest\n']);
    networks = await createNetworks({ dataRoot, execRoot, events, log, settings: { iptables: false, bip: '', bridge: '', dns: [] } });
    const volumes = await createVolumes({ dataRoot, events, log, users: records.usage.volumeUsers, pluginsDir: path.join(dir, 'plugins') });
    containers = await createContainers({ dataRoot, events, log, records, rootfs, images: images.store, networks: networks.containers, volumes: volumes.containers, metrics: new EngineMetrics(), logConfig: { Type: 'json-file', Config: {} } });
  });

  after(async () => {
    containers?.shutdown();
    await networks?.shutdown();
    sweep(dir);
  });

  test('makes the container from a typed spec, runs it, and removes it', async () => {
    const image = images.store.get('busybox');
    // what the builder does for a RUN step: its own configuration, normalized as the API's is
    // (on no network: this process shares the host's network namespace, which tests leave alone)
    const body = decodeCreateBody({ Image: 'busybox', Cmd: ['sh', '-c', 'echo typed > out'], WorkingDir: '/work', HostConfig: { NetworkMode: 'none' } });
    const { warnings, ...normalized } = normalizeCreate({ body, api: { has: () => false }, image: image.config.config ?? null, limits: daemonCreateLimits({ Type: 'json-file', Config: {} }), dataRoot });
    assert.deepEqual(warnings, []);
    const seen: string[] = [];
    const { live } = events.subscribe();
    const id = await containers.service.create({ name: '/typed', image: { id: image.id, topLayer: image.topLayer, layerDirs: images.store.layerDirs(image) }, ...normalized });

    const record = containers.service.get('typed');
    assert.equal(record.id, id);
    assert.equal(record.image, image.id);
    assert.deepEqual([record.path, record.args], ['sh', ['-c', 'echo typed > out']]);
    // dockerd makes the working directory at create
    assert.deepEqual(await containers.api.changes(id), [{ path: '/work', kind: 1 }]);

    const ended = containers.service.wait(id, 'next-exit');
    await containers.service.start(id);
    assert.deepEqual(await ended, { statusCode: 0 });
    assert.deepEqual(await containers.api.changes(id), [{ path: '/work', kind: 1 }, { path: '/work/out', kind: 1 }]);

    await containers.service.remove(id, { force: false, removeVolumes: true });
    assert.throws(() => containers.service.get(id), { kind: 'notFound' });
    live.close();
    for await (const ev of live) seen.push(ev.action);
    assert.deepEqual(seen.filter((a) => ['create', 'start', 'die', 'destroy'].includes(a)), ['create', 'start', 'die', 'destroy']);
  });
});
