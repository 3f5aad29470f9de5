// Import of a root filesystem, deletion rules and prune, through the API and the docker CLI.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { dockerSaveArchive, tarOf } from '../../helpers/image-archives.js';
import { threeLayerImage } from './fixtures.js';

let d: Berthd;
let rootfs: Buffer;
before(async () => {
  d = await Berthd.start();
  rootfs = await tarOf([
    { name: 'bin/', type: 'directory' },
    { name: 'bin/hello', content: 'hello\n', mode: 0o755 },
  ]);
});
after(() => d.stop());

function lines(body: string): Array<Record<string, unknown>> {
  return body.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('POST /images/create?fromSrc=- (import)', () => {
  it('imports a tar with repo, tag, message and changes, and answers the image ID', async () => {
    const q = new URLSearchParams({ fromSrc: '-', repo: 'imported', tag: 'v1', message: 'hello msg' });
    q.append('changes', 'CMD ["/bin/hello"]');
    q.append('changes', 'ENV A=b');
    const r = await d.request('POST', `/images/create?${q}`, { body: rootfs, headers: { 'Content-Type': 'application/x-tar' } });
    assert.equal(r.status, 200);
    const [msg] = lines(r.body);
    assert.match(String(msg.status), /^sha256:[0-9a-f]{64}$/);
    const inspect = (await d.request('GET', '/images/imported:v1/json')).json() as { Id: string; Comment: string; Config: { Cmd: string[]; Env: string[] }; RootFS: { Layers: string[] } };
    assert.equal(inspect.Id, msg.status);
    assert.equal(inspect.Comment, 'hello msg');
    assert.deepEqual(inspect.Config.Cmd, ['/bin/hello']);
    assert.deepEqual(inspect.Config.Env, ['A=b']);
    assert.equal(inspect.RootFS.Layers.length, 1);
  });

  it('refuses a bad change, name or platform before the stream starts', async () => {
    const bad = async (q: string) => d.request('POST', `/images/create?fromSrc=-&${q}`, { body: rootfs });
    let r = await bad('changes=BOGUS%20x');
    assert.equal(r.status, 400);
    assert.deepEqual(r.json(), { message: 'bogus is not a valid change command' });
    r = await bad('repo=UPPER');
    assert.equal(r.status, 400);
    assert.deepEqual(r.json(), { message: 'invalid reference format: repository name must be lowercase' });
    r = await bad('platform=windows/amd64');
    assert.equal(r.status, 400);
  });

  it('imports from a URL on loopback', async () => {
    const server = http.createServer((_req, res) => res.end(rootfs));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rootfs.tar`;
      const r = await d.request('POST', `/images/create?fromSrc=${encodeURIComponent(url)}&repo=fromurl`);
      assert.match(String(lines(r.body)[0].status), /^sha256:/);
      const inspect = (await d.request('GET', '/images/fromurl/json')).json() as { Comment: string };
      assert.equal(inspect.Comment, `Imported from ${url}`);
    } finally {
      server.close();
    }
  });

  it('works through docker import', async () => {
    const file = path.join(tempDir(), 'rootfs.tar');
    writeFileSync(file, rootfs);
    const r = await d.docker(['import', '--change', 'WORKDIR /srv', file, 'cli-import:1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.trim(), /^sha256:[0-9a-f]{64}$/);
    const inspect = await d.docker(['image', 'inspect', '--format', '{{.Config.WorkingDir}}', 'cli-import:1']);
    assert.equal(inspect.stdout.trim(), '/srv');
  });

  it('answers a pull from a registry nobody serves with a status before any stream, in dockerd\'s words', async () => {
    const r = await d.request('POST', '/images/create?fromImage=127.0.0.1:1/nothing&tag=latest');
    assert.equal(r.status, 500);
    assert.deepEqual(r.json(), { message: 'Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused' });
  });
});

describe('DELETE /images/{name}', () => {
  it('untags one name of several, then deletes the image with its layers', async () => {
    const img = await threeLayerImage(['del/a:1', 'del/b:1'], 'delete');
    await d.request('POST', '/images/load', { body: await dockerSaveArchive([img]) });
    let r = await d.request('DELETE', '/images/del/a:1');
    assert.deepEqual(r.json(), [{ Untagged: 'del/a:1' }]);
    r = await d.request('DELETE', '/images/del/b:1');
    const items = r.json() as Array<{ Untagged?: string; Deleted?: string }>;
    assert.deepEqual(items[0], { Untagged: 'del/b:1' });
    assert.deepEqual(items[1], { Deleted: img.id });
    assert.equal(items.length, 2 + 3, 'the three layers are reported deleted');
    assert.equal((await d.request('GET', `/images/${img.id}/json`)).status, 404);
  });

  it('refuses to delete by ID an image named in several repositories without force', async () => {
    const img = await threeLayerImage(['multi/a:1', 'multi/b:1'], 'multi');
    await d.request('POST', '/images/load', { body: await dockerSaveArchive([img]) });
    const r = await d.request('DELETE', `/images/${img.id.slice(7, 19)}`);
    assert.equal(r.status, 409);
    assert.match((r.json() as { message: string }).message, /image is referenced in multiple repositories/);
    const forced = await d.request('DELETE', `/images/${img.id.slice(7, 19)}?force=1`);
    assert.equal(forced.status, 200);
  });

  it('answers 404 with dockerd\'s message for a missing image', async () => {
    const r = await d.request('DELETE', '/images/nope');
    assert.equal(r.status, 404);
    assert.deepEqual(r.json(), { message: 'No such image: nope:latest' });
  });
});

describe('POST /images/prune', () => {
  it('removes dangling images only, then every unused one with dangling=false', async () => {
    const keep = await threeLayerImage(['prune/keep:1'], 'prune-keep');
    const dangling = await threeLayerImage([], 'prune-dangling');
    await d.request('POST', '/images/load', { body: await dockerSaveArchive([keep, dangling]) });
    let r = (await d.request('POST', '/images/prune')).json() as { ImagesDeleted: Array<{ Deleted?: string }>; SpaceReclaimed: number };
    assert.ok(r.ImagesDeleted.some((i) => i.Deleted === dangling.id));
    assert.ok(!r.ImagesDeleted.some((i) => i.Deleted === keep.id));
    assert.ok(r.SpaceReclaimed > 0);
    r = (await d.request('POST', `/images/prune?filters=${encodeURIComponent('{"dangling":["false"]}')}`)).json() as typeof r;
    assert.ok(r.ImagesDeleted.some((i) => i.Deleted === keep.id));
    const list = (await d.request('GET', '/images/json')).json() as unknown[];
    assert.deepEqual(list, []);
    const none = (await d.request('POST', '/images/prune')).json();
    assert.deepEqual(none, { ImagesDeleted: null, SpaceReclaimed: 0 });
  });
});

describe('after a restart of the daemon', () => {
  it('every image, tag and layer is still there', async () => {
    const first = await Berthd.start();
    const img = await threeLayerImage(['persist/me:1'], 'persist');
    await first.request('POST', '/images/load', { body: await dockerSaveArchive([img]) });
    await first.stop('SIGKILL');
    const second = await Berthd.start({ dataRoot: first.dataRoot });
    try {
      const inspect = (await second.request('GET', '/images/persist/me:1/json')).json() as { Id: string };
      assert.equal(inspect.Id, img.id);
      const saved = await second.request('GET', '/images/persist/me:1/get');
      assert.equal(saved.status, 200);
    } finally {
      await second.stop();
    }
  });
});
