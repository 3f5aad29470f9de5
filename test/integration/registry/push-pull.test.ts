// docker push and docker pull against an anonymous registry on loopback (Debian's docker-registry
// in berthd's network namespace): the round trip keeps the image ID and the digest, a second push
// finds every layer there, RepoDigests, `docker images --digests`, GET /distribution/{name}/json,
// pull by digest, `docker run` of an absent image, the pull and push events, and a pull into a
// berthd on a clean data root (the last test: it stops the first berthd).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';
import { loadBusybox } from '../../helpers/busybox-image.js';
import { sha256 } from '../../helpers/image-archives.js';
import type { Registry } from '../../helpers/registry.js';
import { DOCKER_MANIFEST, OCI_MANIFEST, loadImage, pushDirect, threeLayerImage } from '../../helpers/registry-images.js';
import { eventsSince, inspectImage, nowSeconds, pushedDigest, stage, unstage, type Stage } from './setup.js';

describe('push and pull, anonymous registry', () => {
  let s: Stage | undefined;
  let reg: Registry;
  let repo: string;
  let imageId: string;
  let digest: string;
  before(async () => {
    s = await stage();
    reg = await s.registry();
    repo = `${reg.host}/test/three`;
    const image = await threeLayerImage('round-trip');
    imageId = image.id;
    await loadImage(s.d, image, `${repo}:v1`);
  });
  after(async () => {
    await unstage(s);
  });

  test('docker push: every layer Pushed, the digest printed is the registry\'s, recorded in RepoDigests; a push event', async () => {
    const d = s!.d;
    const since = nowSeconds();
    const push = await d.docker(['push', `${repo}:v1`], { timeoutMs: 120_000 });
    assert.equal(push.code, 0, push.stderr + push.stdout);
    assert.match(push.stdout, new RegExp(`The push refers to repository \\[${repo.replace(/\./g, '\\.')}\\]`));
    assert.equal((push.stdout.match(/: Pushed$/gm) ?? []).length, 3, push.stdout);
    digest = pushedDigest(push.stdout);
    const m = await reg.fetch('GET', '/v2/test/three/manifests/v1', { headers: { Accept: `${DOCKER_MANIFEST}, ${OCI_MANIFEST}` } });
    assert.equal(m.status, 200);
    assert.equal(m.headers['docker-content-digest'], digest);
    assert.equal(sha256(m.body), digest);
    const manifest = m.json() as { config: { digest: string }; layers: unknown[] };
    assert.equal(manifest.config.digest, imageId, 'the config pushed is the image\'s, byte for byte');
    assert.equal(manifest.layers.length, 3);
    const img = await inspectImage(d, `${repo}:v1`);
    assert.deepEqual(img?.RepoDigests, [`${repo}@${digest}`]);
    const { events } = await eventsSince(d, since);
    assert.ok(events.some((e) => e.Action === 'push' && e.Actor.ID === `${repo}:v1`), JSON.stringify(events));
  });

  test('a second push: Layer already exists for each layer, the same digest', async () => {
    const push = await s!.d.docker(['push', `${repo}:v1`], { timeoutMs: 120_000 });
    assert.equal(push.code, 0, push.stderr + push.stdout);
    assert.equal((push.stdout.match(/: Layer already exists$/gm) ?? []).length, 3, push.stdout);
    assert.doesNotMatch(push.stdout, /: Pushed$/m);
    assert.equal(pushedDigest(push.stdout), digest, 'compressed layers are made once and kept: the digest is stable');
  });

  test('docker rmi, then docker pull: Pull complete per layer, the same ID, the digest, RepoDigests; a pull event', async () => {
    const d = s!.d;
    const rmi = await d.docker(['rmi', `${repo}:v1`]);
    assert.equal(rmi.code, 0, rmi.stderr);
    assert.equal(await inspectImage(d, `${repo}:v1`), undefined);
    const since = nowSeconds();
    const pull = await d.docker(['pull', `${repo}:v1`], { timeoutMs: 120_000 });
    assert.equal(pull.code, 0, pull.stderr + pull.stdout);
    assert.match(pull.stdout, /v1: Pulling from test\/three/);
    // each layer has its line, as dockerd's: Already exists (busybox's, which berthd loaded; the others if berth kept them) or Pull complete
    assert.equal((pull.stdout.match(/: (Pull complete|Already exists)$/gm) ?? []).length, 3, pull.stdout);
    assert.match(pull.stdout, new RegExp(`Digest: ${digest}`));
    assert.match(pull.stdout, /Status: Downloaded newer image for /);
    const img = await inspectImage(d, `${repo}:v1`);
    assert.equal(img?.Id, imageId);
    assert.deepEqual(img?.RepoDigests, [`${repo}@${digest}`]);
    assert.deepEqual(img?.RepoTags, [`${repo}:v1`]);
    const { events } = await eventsSince(d, since);
    assert.ok(events.some((e) => e.Action === 'pull' && e.Actor.ID === `${repo}:v1`), JSON.stringify(events));
    const again = await d.docker(['pull', `${repo}:v1`], { timeoutMs: 60_000 });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Status: Image is up to date for /);
  });

  test('docker images --digests and docker image inspect show the digest', async () => {
    const d = s!.d;
    const list = await d.docker(['images', '--digests', '--no-trunc', '--format', '{{.Repository}}|{{.Tag}}|{{.Digest}}|{{.ID}}']);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(list.stdout.split('\n').includes(`${repo}|v1|${digest}|${imageId}`), list.stdout);
    const inspect = await d.docker(['image', 'inspect', '--format', '{{json .RepoDigests}}', `${repo}:v1`]);
    assert.equal(inspect.stdout.trim(), JSON.stringify([`${repo}@${digest}`]));
  });

  test('GET /distribution/{name}/json: the manifest\'s descriptor and its platform', async () => {
    const r = await s!.d.request('GET', `/distribution/${repo}:v1/json`, { headers: { 'X-Registry-Auth': 'e30' } });
    assert.equal(r.status, 200, r.body);
    const body = r.json() as { Descriptor: { mediaType: string; digest: string; size: number }; Platforms: Array<{ architecture: string; os: string }> };
    assert.equal(body.Descriptor.digest, digest);
    assert.ok([DOCKER_MANIFEST, OCI_MANIFEST].includes(body.Descriptor.mediaType), body.Descriptor.mediaType);
    assert.ok(body.Descriptor.size > 0);
    assert.deepEqual(body.Platforms.map((p) => `${p.os}/${p.architecture}`), ['linux/amd64']);
    const missing = await s!.d.request('GET', `/distribution/${reg.host}/test/nothing-here:v1/json`);
    assert.ok(missing.status === 401 || missing.status === 404, `${missing.status} ${missing.body}`);
  });

  test('pull by digest: the image under its digest alone, name@digest resolves', async () => {
    const d = s!.d;
    const image = await threeLayerImage('by-digest');
    const pushed = await pushDirect(reg, 'test/bydigest', 'v1', image);
    const ref = `${reg.host}/test/bydigest@${pushed.digest}`;
    const pull = await d.docker(['pull', ref], { timeoutMs: 120_000 });
    assert.equal(pull.code, 0, pull.stderr + pull.stdout);
    assert.match(pull.stdout, new RegExp(`Digest: ${pushed.digest}`));
    const img = await inspectImage(d, ref);
    assert.equal(img?.Id, image.id);
    assert.deepEqual(img?.RepoDigests, [ref]);
    assert.deepEqual(img?.RepoTags, []);
    const run = await d.docker(['run', '--rm', ref, 'cat', '/srv/c.txt']);
    assert.equal(run.stdout, 'third layer by-digest\n', run.stderr);
    // a digest the registry does not have
    const absent = await d.docker(['pull', `${reg.host}/test/bydigest@sha256:${'0'.repeat(64)}`], { timeoutMs: 60_000 });
    assert.notEqual(absent.code, 0);
    assert.match(absent.stderr, /not found|unknown/i);
  });

  test('docker run of an absent image pulls it (create → 404 → pull → create), an OCI manifest', async () => {
    const d = s!.d;
    const image = await threeLayerImage('run-pulls');
    await pushDirect(reg, 'test/runme', 'latest', image, { oci: true });
    const run = await d.docker(['run', '--rm', `${reg.host}/test/runme`, 'cat', '/srv/a.txt', '/srv/c.txt'], { timeoutMs: 120_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'first file run-pulls\nthird layer run-pulls\n');
    assert.match(run.stderr, /Unable to find image '.*test\/runme:latest' locally/);
    assert.match(run.stderr, /Pull complete/);
    assert.equal((await inspectImage(d, `${reg.host}/test/runme:latest`))?.Id, image.id);
    // an image the registry does not have: the registry's error, and no container left
    const absent = await d.docker(['run', '--rm', `${reg.host}/test/absent:v1`, 'true'], { timeoutMs: 60_000 });
    assert.notEqual(absent.code, 0);
    assert.match(absent.stderr, /not found|manifest unknown/i);
  });

  test('a pull into a berthd on a clean data root: the same ID and RepoDigests', async () => {
    // in the same namespace as the registry, once the first berthd is gone (each makes its bridge in there)
    await s!.d.stop();
    const d2 = await Berthd.start({ netns: s!.d.netns });
    try {
      await loadBusybox(d2);
      const pull = await d2.docker(['pull', `${repo}:v1`], { timeoutMs: 120_000 });
      assert.equal(pull.code, 0, pull.stderr + pull.stdout);
      assert.equal((pull.stdout.match(/: (Pull complete|Already exists)$/gm) ?? []).length, 3, pull.stdout);
      const img = await inspectImage(d2, `${repo}:v1`);
      assert.equal(img?.Id, imageId);
      assert.deepEqual(img?.RepoDigests, [`${repo}@${digest}`]);
      const run = await d2.docker(['run', '--rm', `${repo}:v1`, 'cat', '/srv/sub/b.txt']);
      assert.equal(run.stdout, 'second file\n', run.stderr);
    } finally {
      await d2.docker(['rm', '-f', ...(await d2.docker(['ps', '-aq'])).stdout.split('\n').filter((x) => x)]).catch(() => undefined);
      await d2.stop();
    }
  });
});
