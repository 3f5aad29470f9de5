// Pulls that fail: a blob whose bytes are not its digest's, a registry (a faulty proxy in front of
// it) answering 500 or closing the connection midway through a blob, and the registry stopped in
// the middle of a pull. Each gives a clear error and records nothing (no image, no tag); a retry
// once the registry is well completes, and reuses the layers the failed pull had verified.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../helpers/berthd.js';
import { startFaultyProxy, type FaultyProxy, type Registry } from '../../helpers/registry.js';
import { bigLayerImage, pushDirect, sameContentOtherDigest, threeLayerImage } from '../../helpers/registry-images.js';
import { imageIds, inspectImage, stage, unstage, type Stage } from './setup.js';

describe('pulls that fail', () => {
  let s: Stage | undefined;
  let reg: Registry;
  let proxy: FaultyProxy;
  before(async () => {
    s = await stage();
    reg = await s.registry();
    proxy = await startFaultyProxy(reg.netns, tempDir(), reg.host);
  });
  after(async () => {
    await proxy?.stop();
    await unstage(s, { expectErrors: true });
  });

  test('a blob whose bytes are not its digest (same length, still a valid gzip of the same tar): a digest error, nothing recorded', async () => {
    const d = s!.d;
    const image = await threeLayerImage('corrupt');
    const pushed = await pushDirect(reg, 'test/corrupt', 'v1', image);
    writeFileSync(reg.blobFile(pushed.layerDigests[2]), sameContentOtherDigest(pushed.blobs[2]));
    const before = await imageIds(d);
    const pull = await d.docker(['pull', `${reg.host}/test/corrupt:v1`], { timeoutMs: 180_000 });
    assert.notEqual(pull.code, 0, pull.stdout);
    assert.match(pull.stderr, /digest|checksum|verif/i);
    assert.equal(await inspectImage(d, `${reg.host}/test/corrupt:v1`), undefined);
    assert.deepEqual(await imageIds(d), before);
    // the blob put right: the pull completes
    writeFileSync(reg.blobFile(pushed.layerDigests[2]), pushed.blobs[2]);
    const retry = await d.docker(['pull', `${reg.host}/test/corrupt:v1`], { timeoutMs: 120_000 });
    assert.equal(retry.code, 0, retry.stderr + retry.stdout);
    assert.equal((await inspectImage(d, `${reg.host}/test/corrupt:v1`))?.Id, image.id);
  });

  test('blob GETs answered with 500: the error names it, nothing recorded; a retry once the registry is well completes', async () => {
    const d = s!.d;
    const image = await threeLayerImage('five-hundred');
    await pushDirect(reg, 'test/fivehundred', 'v1', image);
    const ref = `${proxy.host}/test/fivehundred:v1`;
    proxy.set({ mode: 'blob-500' });
    const before = await imageIds(d);
    const pull = await d.docker(['pull', ref], { timeoutMs: 240_000 });
    assert.notEqual(pull.code, 0, pull.stdout);
    assert.match(pull.stderr, /500|internal server error/i);
    assert.equal(await inspectImage(d, ref), undefined);
    assert.deepEqual(await imageIds(d), before);
    proxy.set({ mode: 'pass' });
    const retry = await d.docker(['pull', ref], { timeoutMs: 120_000 });
    assert.equal(retry.code, 0, retry.stderr + retry.stdout);
    assert.equal((await inspectImage(d, ref))?.Id, image.id);
  });

  test('the connection closed halfway through each blob: a clear error, nothing recorded; then a retry completes', async () => {
    const d = s!.d;
    const image = await threeLayerImage('closed');
    await pushDirect(reg, 'test/closed', 'v1', image);
    const ref = `${proxy.host}/test/closed:v1`;
    proxy.set({ mode: 'blob-close' });
    const before = await imageIds(d);
    const pull = await d.docker(['pull', ref], { timeoutMs: 240_000 });
    assert.notEqual(pull.code, 0, pull.stdout);
    assert.ok(pull.stderr.trim() !== '', 'an error is printed');
    assert.match(pull.stderr, /EOF|closed|reset|aborted|premature|incomplete|short|hang up|connection/i);
    assert.equal(await inspectImage(d, ref), undefined);
    assert.deepEqual(await imageIds(d), before);
    proxy.set({ mode: 'pass' });
    const retry = await d.docker(['pull', ref], { timeoutMs: 120_000 });
    assert.equal(retry.code, 0, retry.stderr + retry.stdout);
    assert.equal((await inspectImage(d, ref))?.Id, image.id);
  });

  test('the registry stopped in the middle of a pull: no partial image; started again, a retry completes and fetches only what was missing', async () => {
    const d = s!.d;
    const image = await bigLayerImage(8 * 1024 * 1024, 'interrupted');
    const pushed = await pushDirect(reg, 'test/interrupted', 'v1', image);
    const [, small, big] = pushed.layerDigests;
    const ref = `${proxy.host}/test/interrupted:v1`;
    proxy.set({ mode: 'slow', bytesPerSecond: 2 * 1024 * 1024 });
    const logStart = proxy.log.length;
    const before = await imageIds(d);
    const pulling = d.docker(['pull', ref], { timeoutMs: 240_000 });
    await proxy.waitFor('1 MiB of the big layer', (e) => String(e.blob ?? '').endsWith(big) && Number(e.bytes) >= 1024 * 1024, 60_000);
    await reg.stop();
    const pull = await pulling;
    assert.notEqual(pull.code, 0, pull.stdout);
    assert.ok(pull.stderr.trim() !== '', 'an error is printed');
    assert.equal(await inspectImage(d, ref), undefined);
    assert.deepEqual(await imageIds(d), before);
    const smallDone = proxy.log.slice(logStart).some((e) => e.method === 'GET' && String(e.path).endsWith(small) && e.status === 200);
    await reg.start();
    proxy.set({ mode: 'pass' });
    const retryStart = proxy.log.length;
    const retry = await d.docker(['pull', ref], { timeoutMs: 120_000 });
    assert.equal(retry.code, 0, retry.stderr + retry.stdout);
    assert.equal((await inspectImage(d, ref))?.Id, image.id);
    const run = await d.docker(['run', '--rm', ref, 'sh', '-c', 'wc -c < /srv/big.bin']);
    assert.equal(run.stdout.trim(), String(8 * 1024 * 1024), run.stderr);
    if (smallDone) {
      const refetched = proxy.log.slice(retryStart).filter((e) => e.method === 'GET' && String(e.path).endsWith(small));
      assert.deepEqual(refetched, [], 'the small layer, downloaded and verified by the failed pull, is not fetched again');
    }
  });
});
