// Loading and saving images through the API and the docker CLI, with archives made in the tests.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { dockerSaveArchive, makeImage, ociLayoutArchive, sha256, tarOf, type TestImage } from '../../helpers/image-archives.js';
import { untar } from '../../helpers/image-archives.js';
import { threeLayerImage } from './fixtures.js';

let d: Berthd;
let image: TestImage;
before(async () => {
  d = await Berthd.start();
  image = await threeLayerImage();
});
after(() => d.stop());

async function load(archive: Buffer, target = d): Promise<{ status: number; messages: Array<Record<string, unknown>> }> {
  const r = await target.request('POST', '/images/load', { body: archive, headers: { 'Content-Type': 'application/x-tar' }, timeoutMs: 60000 });
  return { status: r.status, messages: r.body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

async function getRaw(urlPath: string): Promise<Buffer> {
  const { default: http } = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: d.socket, path: urlPath }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${res.statusCode}: ${Buffer.concat(chunks)}`))));
      })
      .on('error', reject);
  });
}

describe('POST /images/load of a docker save archive', () => {
  it('loads a three-layer image with gzip\'d layers and reports it as dockerd does', async () => {
    const r = await load(await dockerSaveArchive([image], { gzipLayers: true }));
    assert.equal(r.status, 200);
    assert.deepEqual(r.messages, [{ stream: 'Loaded image: test/multi:v1\n' }]);
  });

  it('keeps the image ID, layers and tags', async () => {
    const inspect = (await d.request('GET', '/images/test/multi:v1/json')).json() as Record<string, unknown> & { RootFS: { Layers: string[] } };
    assert.equal(inspect.Id, image.id);
    assert.deepEqual(inspect.RootFS.Layers, image.diffIds);
    assert.deepEqual(inspect.RepoTags, ['test/multi:v1']);
    assert.equal(inspect.Os, 'linux');
    assert.equal((inspect.Config as { Labels: Record<string, string> }).Labels['org.example.kind'], 'test');
  });

  it('answers inspect with dockerd 20.10\'s fields, the same at 1.25, 1.40 and 1.41', async () => {
    // dockerd 20.10 sends this shape at every version (the 1.25 spec's VendorVersion and
    // RootFS.BaseLayer are not sent by it either)
    const fields = ['Architecture', 'Author', 'Comment', 'Config', 'Container', 'ContainerConfig', 'Created', 'DockerVersion', 'GraphDriver', 'Id', 'Metadata', 'Os', 'Parent', 'RepoDigests', 'RepoTags', 'RootFS', 'Size', 'VirtualSize'];
    for (const prefix of ['/v1.25', '/v1.40', '/v1.41']) {
      const inspect = (await d.request('GET', `${prefix}/images/test/multi:v1/json`)).json() as Record<string, unknown>;
      assert.deepEqual(Object.keys(inspect).sort(), fields, prefix);
    }
  });

  it('unpacks layers that overlayfs stacks into the right filesystem', async () => {
    const inspect = (await d.request('GET', `/images/${image.id}/json`)).json() as { GraphDriver: { Data: { UpperDir: string; LowerDir: string } } };
    const lowers = [inspect.GraphDriver.Data.UpperDir, ...inspect.GraphDriver.Data.LowerDir.split(':')];
    const merged = path.join(tempDir(), 'merged');
    mkdirSync(merged);
    execFileSync('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${lowers.join(':')}`, merged]);
    try {
      assert.equal(readFileSync(path.join(merged, 'etc/hostname'), 'utf8'), 'base\n');
      assert.equal(readFileSync(path.join(merged, 'top.txt'), 'utf8'), 'layer three\n');
      assert.throws(() => statSync(path.join(merged, 'etc/gone')), /ENOENT/, 'the whiteout does not hide the file');
      assert.deepEqual(readdirSync(path.join(merged, 'data')), ['new-1'], 'the opaque dir does not hide the lower contents');
      const tool = statSync(path.join(merged, 'bin/tool'));
      assert.equal(tool.mode & 0o7777, 0o755);
      assert.equal(tool.uid, 1000);
      assert.equal(readFileSync(path.join(merged, 'bin/tool-hardlink-from-lower'), 'utf8'), '#!/bin/sh\necho tool\n');
    } finally {
      execFileSync('umount', [merged]);
    }
  });

  it('lists, tags, shows history and counts the image', async () => {
    const tag = await d.request('POST', '/images/test/multi:v1/tag?repo=example.org:5000/other&tag=t1');
    assert.equal(tag.status, 201);
    const list = (await d.request('GET', '/images/json')).json() as Array<{ Id: string; RepoTags: string[] }>;
    const entry = list.find((i) => i.Id === image.id);
    assert.deepEqual(entry?.RepoTags.sort(), ['example.org:5000/other:t1', 'test/multi:v1']);
    const history = (await d.request('GET', '/images/test/multi:v1/history')).json() as Array<{ Id: string; CreatedBy: string }>;
    assert.deepEqual(history.map((h) => h.CreatedBy), ['step 2', 'step 1', 'step 0']);
    assert.equal(history[0].Id, image.id);
    assert.equal(history[1].Id, '<missing>');
    const info = (await d.request('GET', '/info')).json() as { Images: number };
    assert.equal(info.Images, 1);
  });

  it('saves it in Docker\'s format with the same config and layer digests, and loads that again elsewhere with the same ID', async () => {
    const saved = await getRaw('/images/test/multi:v1/get');
    const files = await untar(saved);
    const manifest = JSON.parse(files.get('manifest.json')!.toString()) as Array<{ Config: string; RepoTags: string[]; Layers: string[] }>;
    assert.deepEqual(manifest[0].RepoTags, ['test/multi:v1']);
    assert.equal(sha256(files.get(manifest[0].Config)!), image.id);
    assert.deepEqual(manifest[0].Layers.map((l) => sha256(files.get(l)!)), image.diffIds);
    const other = await Berthd.start();
    try {
      const r = await load(saved, other);
      assert.deepEqual(r.messages, [{ stream: 'Loaded image: test/multi:v1\n' }]);
      const again = (await other.request('GET', '/images/test/multi:v1/json')).json() as { Id: string };
      assert.equal(again.Id, image.id);
    } finally {
      await other.stop();
    }
  });
});

describe('a save whose client leaves', () => {
  // found by the API fuzzer (test/fuzz): the archive torn down mid-layer destroyed the layer's tar
  // entry with an error nothing listened for, which killed the daemon
  it('leaves the daemon serving, with no layer file left open', async () => {
    // a layer of a megabyte, as busybox's, so the client leaves while it is being written
    await loadBusybox(d, 'save/leave:1');
    const fds = () => readdirSync(`/proc/${d.proc.pid}/fd`).length;
    const before = fds();
    const { default: net } = await import('node:net');
    for (let i = 0; i < 12; i++) {
      const c = net.connect(d.socket);
      c.on('error', () => {});
      c.write('GET /images/save/leave:1/get HTTP/1.1\r\nHost: berth\r\n\r\n');
      // gone before the answer, with its head, or a moment into the layers
      if (i % 3 !== 0) await new Promise((resolve) => c.once('data', resolve));
      if (i % 3 === 2) await new Promise((resolve) => setTimeout(resolve, 5));
      c.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(d.proc.exitCode, null, d.log.split('\n').filter((l) => !l.startsWith('{')).join('\n'));
    assert.equal((await d.request('GET', '/_ping')).status, 200);
    assert.ok(fds() <= before + 1, `${fds()} descriptors open, ${before} before`);
  });
});

describe('archives with several images', () => {
  it('loads two images that use the same layer file under different parents', async () => {
    const shared = await tarOf([{ name: 'shared.txt', content: 'shared\n' }]);
    const first = makeImage([shared], { repoTags: ['shared/a:1'] });
    const second = makeImage([await tarOf([{ name: 'below.txt', content: 'below\n' }]), shared], { repoTags: ['shared/b:1'] });
    const r = await load(await dockerSaveArchive([first, second]));
    assert.deepEqual(r.messages, [{ stream: 'Loaded image: shared/a:1\n' }, { stream: 'Loaded image: shared/b:1\n' }]);
    for (const [name, img] of [['shared/a:1', first], ['shared/b:1', second]] as const) {
      const inspect = (await d.request('GET', `/images/${name}/json`)).json() as { Id: string };
      assert.equal(inspect.Id, img.id);
    }
  });
});

describe('zstd layers', () => {
  it('loads a docker save archive whose layers are zstd-compressed', async () => {
    const img = await threeLayerImage(['zstd/test:1'], 'zstd');
    const zstd = (data: Buffer) => execFileSync('zstd', ['-q', '-c'], { input: data });
    const archive = await dockerSaveArchive([{ ...img, layers: img.layers.map(zstd) }]);
    const r = await load(archive);
    assert.deepEqual(r.messages, [{ stream: 'Loaded image: zstd/test:1\n' }]);
    const inspect = (await d.request('GET', '/images/zstd/test:1/json')).json() as { Id: string };
    assert.equal(inspect.Id, img.id);
  });
});

describe('OCI image layouts', () => {
  it('loads an OCI layout with the same image ID', async () => {
    const oci = await threeLayerImage([], 'oci');
    const r = await load(await ociLayoutArchive(oci, 'docker.io/library/oci-test:1'));
    assert.deepEqual(r.messages, [{ stream: 'Loaded image: oci-test:1\n' }]);
    const inspect = (await d.request('GET', '/images/oci-test:1/json')).json() as { Id: string };
    assert.equal(inspect.Id, oci.id);
  });
});

describe('the docker CLI', () => {
  it('load, images, inspect, tag, history, save and rmi work', async () => {
    const img = await threeLayerImage(['cli/test:1'], 'cli');
    const dir = tempDir();
    const file = path.join(dir, 'in.tar');
    writeFileSync(file, await dockerSaveArchive([img]));
    const loaded = await d.docker(['load', '-i', file]);
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.match(loaded.stdout, /Loaded image: cli\/test:1/);
    const images = await d.docker(['images', '--format', '{{.Repository}}:{{.Tag}} {{.ID}}']);
    assert.equal(images.code, 0, images.stderr);
    assert.match(images.stdout, new RegExp(`cli/test:1 ${img.id.slice(7, 19)}`));
    assert.equal((await d.docker(['tag', 'cli/test:1', 'cli/test:2'])).code, 0);
    const inspect = await d.docker(['image', 'inspect', '--format', '{{.Id}} {{json .RepoTags}}', 'cli/test:2']);
    assert.equal(inspect.stdout.trim(), `${img.id} ["cli/test:1","cli/test:2"]`);
    const history = await d.docker(['history', '--no-trunc', '--format', '{{.CreatedBy}}', 'cli/test:1']);
    assert.equal(history.code, 0, history.stderr);
    assert.deepEqual(history.stdout.trim().split('\n'), ['step 2', 'step 1', 'step 0']);
    const out = path.join(dir, 'out.tar');
    assert.equal((await d.docker(['save', '-o', out, 'cli/test:1'])).code, 0);
    const files = await untar(readFileSync(out));
    assert.equal(sha256(files.get(`${img.id.slice(7)}.json`)!), img.id);
    const rmi = await d.docker(['rmi', 'cli/test:2']);
    assert.equal(rmi.stdout.trim(), 'Untagged: cli/test:2');
    const rmiLast = await d.docker(['rmi', 'cli/test:1']);
    assert.match(rmiLast.stdout, /Untagged: cli\/test:1\nDeleted: sha256:/);
  });

  it('images -q REF prints the image once, for the names that match only', async () => {
    const img = await threeLayerImage(['quiet/a:1', 'quiet/b:1'], 'quiet');
    await d.request('POST', '/images/load', { body: await dockerSaveArchive([img]) });
    const quiet = await d.docker(['images', '-q', 'quiet/a']);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, `${img.id.slice(7, 19)}\n`);
    const filters = encodeURIComponent(JSON.stringify({ reference: ['quiet/b:*'] }));
    const listed = (await d.request('GET', `/images/json?filters=${filters}`)).json() as Array<{ RepoTags: string[] }>;
    assert.deepEqual(listed.map((i) => i.RepoTags), [['quiet/b:1']]);
    await d.docker(['rmi', 'quiet/a:1', 'quiet/b:1']);
  });

  it('publishes image events for what was done', async () => {
    const until = (Date.now() / 1000).toFixed(3);
    const filters = encodeURIComponent(JSON.stringify({ type: ['image'] }));
    const r = await d.request('GET', `/events?since=0&until=${until}&filters=${filters}`);
    const actions = new Set(r.body.trim().split('\n').map((l) => (JSON.parse(l) as { Action: string }).Action));
    for (const action of ['load', 'tag', 'untag', 'delete', 'save']) assert.ok(actions.has(action), `no ${action} event`);
  });

  it('answers No such image for a missing one', async () => {
    const r = await d.docker(['rmi', 'nope']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /No such image: nope:latest/);
    const inspect = await d.request('GET', '/images/nope/json');
    assert.equal(inspect.status, 404);
  });
});
