// Bad archives: each load answers 200 and reports the failure in-band, as dockerd's stream does
// ({"errorDetail":{"message"},"error"}: docker-py raises ImageLoadError from it, the CLI prints it
// and exits 1), and leaves the store as it was, with nothing written outside the data root.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Berthd, tempDir } from '../../helpers/berthd.js';
import { dockerSaveArchive, makeImage, tarOf, type TestImage } from '../../helpers/image-archives.js';
import { threeLayerImage } from './fixtures.js';

let d: Berthd;
let good: TestImage;
let outside: string;
before(async () => {
  d = await Berthd.start();
  good = await threeLayerImage(['keep/me:1'], 'keep');
  const r = await d.request('POST', '/images/load', { body: await dockerSaveArchive([good]) });
  assert.match(r.body, /Loaded image: keep\/me:1/);
  outside = tempDir('berth-outside-');
});
after(() => d.stop());

/** Every file and folder under the data root's image store and staging. */
function storeSnapshot(): string[] {
  const walk = (dir: string, depth: number): string[] =>
    !existsSync(dir) || !statSync(dir).isDirectory()
      ? []
      : readdirSync(dir).flatMap((n) => [path.join(dir, n), ...(depth > 0 ? walk(path.join(dir, n), depth - 1) : [])]);
  return [...walk(path.join(d.dataRoot, 'image'), 2), ...walk(path.join(d.dataRoot, 'staging', 'image'), 0)].sort();
}

async function expectRefused(archive: Buffer, message: RegExp): Promise<void> {
  const before = storeSnapshot();
  const r = await d.request('POST', '/images/load', { body: archive, timeoutMs: 60000 });
  assert.equal(r.status, 200, `a bad archive answered ${r.status}: ${r.body}`);
  assert.equal(r.headers['content-type'], 'application/json');
  const lines = r.body.trim().split('\n').map((l) => JSON.parse(l) as { error?: string; errorDetail?: { message: string } });
  const last = lines.at(-1);
  assert.match(last?.error ?? '', message);
  assert.deepEqual(last?.errorDetail, { message: last?.error });
  assert.deepEqual(storeSnapshot(), before, 'the store changed');
  assert.deepEqual(readdirSync(outside), [], 'something was written outside the data root');
  const list = (await d.request('GET', '/images/json')).json() as Array<{ RepoTags: string[] }>;
  assert.deepEqual(list.map((i) => i.RepoTags), [['keep/me:1']]);
}

/** A tar whose only entry claims `claimedBytes` of content but carries one byte. */
function tarClaiming(claimedBytes: number): Buffer {
  const header = Buffer.alloc(512);
  header.write('big-file', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(claimedBytes.toString(8).padStart(11, '0') + '\0', 124);
  header.write('14000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return Buffer.concat([header, Buffer.from('x'), Buffer.alloc(511 + 1024)]);
}

describe('bad image archives', () => {
  it('a truncated archive', async () => {
    const whole = await dockerSaveArchive([await threeLayerImage(['trunc:1'], 'trunc')]);
    await expectRefused(whole.subarray(0, Math.floor(whole.length / 2)), /invalid image archive|unexpected end|end of data/i);
  });

  it('a manifest naming a missing layer', async () => {
    const img = await threeLayerImage(['missing:1'], 'missing');
    const manifest = [{ Config: `${img.id.slice(7)}.json`, RepoTags: ['missing:1'], Layers: ['nope/layer.tar', 'nope2/layer.tar', 'nope3/layer.tar'] }];
    await expectRefused(await dockerSaveArchive([img], { manifest }), /nope\/layer\.tar is missing/);
  });

  it('a layer whose digest does not match the config', async () => {
    const img = await threeLayerImage(['mismatch:1'], 'mismatch');
    const tampered: TestImage = { ...img, layers: [img.layers[0], await tarOf([{ name: 'other', content: 'x' }]), img.layers[2]] };
    await expectRefused(await dockerSaveArchive([tampered]), /does not match/);
  });

  it('a layer entry that climbs out with ..', async () => {
    const evil = await tarOf([{ name: `../../../../../../..${outside}/evil`, content: 'x' }]);
    await expectRefused(await dockerSaveArchive([makeImage([evil], { repoTags: ['dotdot:1'] })]), /outside|\.\./);
  });

  it('a symlink that points out, then a file through it', async () => {
    const evil = await tarOf([
      { name: 'esc', type: 'symlink', linkname: outside },
      { name: 'esc/evil', content: 'x' },
    ]);
    await expectRefused(await dockerSaveArchive([makeImage([evil], { repoTags: ['symlink:1'] })]), /symbolic link|outside/i);
  });

  it('a hard link to a file outside the layer', async () => {
    const evil = await tarOf([{ name: 'passwd', type: 'link', linkname: '../../../../../../etc/passwd' }]);
    await expectRefused(await dockerSaveArchive([makeImage([evil], { repoTags: ['hardlink:1'] })]), /outside|link/i);
  });

  it('a header claiming 10 GiB for a tiny file', async () => {
    await expectRefused(await dockerSaveArchive([makeImage([tarClaiming(10 * 1024 ** 3)], { repoTags: ['huge:1'] })]), /.+/);
  });

  it('an archive without manifest.json or index.json', async () => {
    await expectRefused(await tarOf([{ name: 'hello', content: 'x' }]), /neither manifest\.json nor index\.json/);
  });

  it('docker load prints the in-band error and fails, as with dockerd', async () => {
    const file = path.join(tempDir(), 'bad.tar');
    writeFileSync(file, await tarOf([{ name: 'hello', content: 'x' }]));
    const r = await d.docker(['load', '-i', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /neither manifest\.json nor index\.json/);
  });

  it('an image config that is not JSON', async () => {
    const img = await threeLayerImage(['badconfig:1'], 'badconfig');
    await expectRefused(await dockerSaveArchive([{ ...img, config: Buffer.from('{not json') }]), /invalid image configuration/);
  });
});

it('a directory created outside by the tests stays empty (sanity of the probe)', () => {
  mkdirSync(outside, { recursive: true });
  assert.deepEqual(readdirSync(outside), []);
});
