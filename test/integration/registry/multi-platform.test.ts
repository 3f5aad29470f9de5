// An index over two platforms built by the test (an OCI index, and Docker's manifest list), pulled
// for each with --platform; the daemon's own platform by default; GET /distribution lists both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { busyboxLayer } from '../../helpers/busybox-image.js';
import type { Registry } from '../../helpers/registry.js';
import { filesLayer, imageOf, pushDirect, pushIndex, type PushedImage } from '../../helpers/registry-images.js';
import type { TestImage } from '../../helpers/image-archives.js';
import { inspectImage, stage, unstage, type Stage } from './setup.js';

describe('multi-platform index', () => {
  let s: Stage | undefined;
  let reg: Registry;
  let amd: { image: TestImage; pushed: PushedImage };
  let arm: { image: TestImage; pushed: PushedImage };
  let indexDigest: string;
  let listDigest: string;
  before(async () => {
    s = await stage();
    reg = await s.registry();
    const amdImage = imageOf([await busyboxLayer(), await filesLayer({ 'platform.txt': 'amd64\n' })]);
    const armImage = imageOf([await filesLayer({ 'bin/placeholder': 'not an arm64 binary\n', 'platform.txt': 'arm64\n' })], { platform: { architecture: 'arm64', os: 'linux', variant: 'v8' } });
    amd = { image: amdImage, pushed: await pushDirect(reg, 'test/multi', 'amd64-only', amdImage, { oci: true }) };
    arm = { image: armImage, pushed: await pushDirect(reg, 'test/multi', 'arm64-only', armImage, { oci: true }) };
    const entries = [
      { image: amd.pushed, platform: { architecture: 'amd64', os: 'linux' } },
      { image: arm.pushed, platform: { architecture: 'arm64', os: 'linux', variant: 'v8' } },
    ];
    indexDigest = (await pushIndex(reg, 'test/multi', 'latest', entries)).digest;
    const dockerAmd = await pushDirect(reg, 'test/list', 'amd64-only', amdImage);
    const dockerArm = await pushDirect(reg, 'test/list', 'arm64-only', armImage);
    listDigest = (await pushIndex(reg, 'test/list', 'latest', [{ image: dockerAmd, platform: entries[0].platform }, { image: dockerArm, platform: entries[1].platform }], { dockerList: true })).digest;
  });
  after(async () => {
    await unstage(s);
  });

  test('--platform linux/arm64 and then linux/amd64: each its own image, the index digest in RepoDigests', async () => {
    const d = s!.d;
    const ref = `${reg.host}/test/multi:latest`;
    const arm64 = await d.docker(['pull', '--platform', 'linux/arm64', ref], { timeoutMs: 120_000 });
    assert.equal(arm64.code, 0, arm64.stderr + arm64.stdout);
    assert.match(arm64.stdout, new RegExp(`Digest: ${indexDigest}`));
    const a = await inspectImage(d, ref);
    assert.equal(a?.Id, arm.image.id);
    assert.equal(a?.Architecture, 'arm64');
    assert.equal(a?.Variant, 'v8');
    assert.deepEqual(a?.RepoDigests, [`${reg.host}/test/multi@${indexDigest}`]);
    const amd64 = await d.docker(['pull', '--platform', 'linux/amd64', ref], { timeoutMs: 120_000 });
    assert.equal(amd64.code, 0, amd64.stderr + amd64.stdout);
    const b = await inspectImage(d, ref);
    assert.equal(b?.Id, amd.image.id);
    assert.equal(b?.Architecture, 'amd64');
    const run = await d.docker(['run', '--rm', ref, 'cat', '/platform.txt']);
    assert.equal(run.stdout, 'amd64\n', run.stderr);
    // the arm64 image is still there, untagged
    assert.equal((await inspectImage(d, arm.image.id))?.Architecture, 'arm64');
  });

  test('no --platform: the daemon\'s (linux/amd64); a platform the index lacks is an error', async () => {
    const d = s!.d;
    const ref = `${reg.host}/test/list:latest`;
    const pull = await d.docker(['pull', ref], { timeoutMs: 120_000 });
    assert.equal(pull.code, 0, pull.stderr + pull.stdout);
    assert.match(pull.stdout, new RegExp(`Digest: ${listDigest}`));
    assert.equal((await inspectImage(d, ref))?.Architecture, 'amd64');
    const arm64 = await d.docker(['pull', '--platform', 'linux/arm64/v8', ref], { timeoutMs: 120_000 });
    assert.equal(arm64.code, 0, arm64.stderr + arm64.stdout);
    assert.equal((await inspectImage(d, ref))?.Id, arm.image.id);
    const none = await d.docker(['pull', '--platform', 'linux/s390x', ref], { timeoutMs: 60_000 });
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /no matching manifest|s390x/i);
  });

  test('GET /distribution/{name}/json: the index\'s descriptor and both platforms', async () => {
    const r = await s!.d.request('GET', `/distribution/${reg.host}/test/multi:latest/json`);
    assert.equal(r.status, 200, r.body);
    const body = r.json() as { Descriptor: { mediaType: string; digest: string }; Platforms: Array<{ architecture: string; os: string }> };
    assert.equal(body.Descriptor.digest, indexDigest);
    assert.equal(body.Descriptor.mediaType, 'application/vnd.oci.image.index.v1+json');
    assert.deepEqual(body.Platforms.map((p) => `${p.os}/${p.architecture}`).sort(), ['linux/amd64', 'linux/arm64']);
  });
});
