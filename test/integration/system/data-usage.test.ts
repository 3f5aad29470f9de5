// GET /system/df and the shared sizes of images that share layers.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { dockerSaveArchive, makeImage, tarOf, type TestImage } from '../../helpers/image-archives.js';

let d: Berthd;
let first: TestImage;
let second: TestImage;
before(async () => {
  d = await Berthd.start();
  const base = await tarOf([{ name: 'base.bin', content: Buffer.alloc(4000, 1) }]);
  first = makeImage([base, await tarOf([{ name: 'one.bin', content: Buffer.alloc(100, 2) }])], { repoTags: ['df/one:1'] });
  second = makeImage([base, await tarOf([{ name: 'two.bin', content: Buffer.alloc(200, 3) }])], { repoTags: ['df/two:1'] });
  const r = await d.request('POST', '/images/load', { body: await dockerSaveArchive([first, second]) });
  assert.match(r.body, /df\/two:1/);
});
after(() => d.stop());

interface Summary {
  Id: string;
  Size: number;
  SharedSize: number;
  Containers: number;
}

it('counts layers once and the shared base in each image\'s SharedSize', async () => {
  const df = (await d.request('GET', '/system/df')).json() as { LayersSize: number; Images: Summary[]; Containers: unknown[]; Volumes: unknown[] };
  assert.equal(df.LayersSize, 4000 + 100 + 200);
  const byId = new Map(df.Images.map((i) => [i.Id, i]));
  assert.deepEqual([byId.get(first.id)?.Size, byId.get(first.id)?.SharedSize], [4100, 4000]);
  assert.deepEqual([byId.get(second.id)?.Size, byId.get(second.id)?.SharedSize], [4200, 4000]);
  assert.equal(byId.get(first.id)?.Containers, 0);
  assert.deepEqual([df.Containers, df.Volumes], [[], []]);
});

it('lists shared sizes only when asked', async () => {
  const plain = (await d.request('GET', '/images/json')).json() as Summary[];
  assert.ok(plain.every((i) => i.SharedSize === -1));
  const shared = (await d.request('GET', '/images/json?shared-size=1')).json() as Summary[];
  assert.ok(shared.every((i) => i.SharedSize === 4000));
});

it('docker system df shows it through the CLI', async () => {
  const r = await d.docker(['system', 'df', '--format', '{{.Type}} {{.TotalCount}}']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Images 2$/m);
});
