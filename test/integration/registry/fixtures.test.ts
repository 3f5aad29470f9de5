// The registry tests' fixtures on their own, without berth: the registry in each of its set-ups
// (anonymous, htpasswd, bearer tokens from the test's token server, TLS), images put into it with
// the distribution API and read back, and the faulty proxy's modes. When these pass and a berth
// test fails, the fault is berth's.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../helpers/berthd.js';
import { createTestNetns, removeTestNetns } from '../../helpers/netns.js';
import { addLoopbackAddress, fetchIn, startFaultyProxy, startRegistry, type Registry } from '../../helpers/registry.js';
import { DOCKER_MANIFEST, OCI_INDEX, imageOf, pushDirect, pushIndex, sameContentOtherDigest, threeLayerImage } from '../../helpers/registry-images.js';
import { busyboxLayer } from '../../helpers/busybox-image.js';
import { sha256 } from '../../helpers/image-archives.js';

describe('registry fixtures', () => {
  let netns: string;
  const registries: Registry[] = [];
  before(() => {
    netns = createTestNetns(`registry-fixtures-${process.pid}`);
  });
  after(async () => {
    for (const r of registries) await r.close();
    removeTestNetns(netns);
  });

  test('anonymous: an image put with the distribution API reads back, blob for blob; an index over two platforms', async () => {
    const reg = await startRegistry({ netns });
    registries.push(reg);
    assert.match(reg.host, /^127\.0\.0\.1:\d+$/);
    const image = await threeLayerImage('fixtures');
    const pushed = await pushDirect(reg, 'test/three', 'v1', image);
    const m = await reg.fetch('GET', '/v2/test/three/manifests/v1', { headers: { Accept: DOCKER_MANIFEST } });
    assert.equal(m.status, 200);
    assert.equal(m.headers['docker-content-digest'], pushed.digest);
    assert.equal(sha256(m.body), pushed.digest);
    const blob = await reg.fetch('GET', `/v2/test/three/blobs/${pushed.layerDigests[2]}`);
    assert.equal(blob.status, 200);
    assert.equal(sha256(gunzipSync(blob.body)), image.diffIds[2]);
    const arm = await pushDirect(reg, 'test/multi', 'arm64', imageOf([await busyboxLayer()], { platform: { architecture: 'arm64', os: 'linux', variant: 'v8' } }), { oci: true });
    const amd = await pushDirect(reg, 'test/multi', 'amd64', imageOf([await busyboxLayer()]), { oci: true });
    const index = await pushIndex(reg, 'test/multi', 'latest', [
      { image: amd, platform: { architecture: 'amd64', os: 'linux' } },
      { image: arm, platform: { architecture: 'arm64', os: 'linux', variant: 'v8' } },
    ]);
    const got = await reg.fetch('GET', '/v2/test/multi/manifests/latest', { headers: { Accept: OCI_INDEX } });
    assert.equal(got.headers['docker-content-digest'], index.digest);
    assert.equal((got.json() as { manifests: unknown[] }).manifests.length, 2);
    // a blob overwritten in the storage with the same content re-gzipped is served as it is now
    const { writeFileSync } = await import('node:fs');
    writeFileSync(reg.blobFile(pushed.layerDigests[1]), sameContentOtherDigest(pushed.blobs[1]));
    const corrupt = await reg.fetch('GET', `/v2/test/three/blobs/${pushed.layerDigests[1]}`);
    assert.equal(corrupt.status, 200);
    assert.notEqual(sha256(corrupt.body), pushed.layerDigests[1]);
    assert.equal(sha256(gunzipSync(corrupt.body)), image.diffIds[1]);
    // stopped and started again on the same port and storage
    await reg.stop();
    await assert.rejects(reg.fetch('GET', '/v2/'));
    await reg.start();
    assert.equal((await reg.fetch('GET', '/v2/test/three/manifests/v1', { headers: { Accept: DOCKER_MANIFEST } })).status, 200);
  });

  test('htpasswd: 401 with a Basic challenge without credentials or with a wrong password, 200 with the right one', async () => {
    const reg = await startRegistry({ netns, auth: 'htpasswd', users: { alice: 'correct horse' } });
    registries.push(reg);
    const anon = await reg.fetch('GET', '/v2/', { as: null });
    assert.equal(anon.status, 401);
    assert.match(String(anon.headers['www-authenticate']), /^Basic realm="berth-test-registry"/);
    const wrong = await fetchIn(netns, 'GET', `${reg.url}/v2/`, { headers: { Authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` } });
    assert.equal(wrong.status, 401);
    assert.equal((await reg.fetch('GET', '/v2/')).status, 200);
    await pushDirect(reg, 'alice/img', 'v1', imageOf([await busyboxLayer()]));
  });

  test('token: the challenge names the token server; its tokens (token or access_token) are accepted; short-lived ones expire', async () => {
    const reg = await startRegistry({ netns, auth: 'token', users: { bob: 'hunter2' } });
    registries.push(reg);
    const anon = await reg.fetch('GET', '/v2/', { as: null });
    assert.equal(anon.status, 401);
    assert.equal(anon.headers['www-authenticate'], `Bearer realm="${reg.token!.realm}",service="${reg.token!.service}"`);
    assert.equal((await reg.fetch('GET', '/v2/_catalog', { scope: 'registry:catalog:*' })).status, 200);
    await pushDirect(reg, 'bob/img', 'v1', imageOf([await busyboxLayer()]));
    // wrong password: the token server says 401
    const bad = await fetchIn(netns, 'GET', `${reg.token!.realm}?service=${reg.token!.service}&scope=repository:bob/img:pull`, { headers: { Authorization: `Basic ${Buffer.from('bob:nope').toString('base64')}` } });
    assert.equal(bad.status, 401);
    // anonymous: a token without access, which the registry refuses
    const anonToken = (await fetchIn(netns, 'GET', `${reg.token!.realm}?service=${reg.token!.service}&scope=repository:bob/img:pull`)).json() as { token: string };
    const refused = await reg.fetch('GET', '/v2/bob/img/manifests/v1', { as: null, headers: { Authorization: `Bearer ${anonToken.token}`, Accept: DOCKER_MANIFEST } });
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /scope="repository:bob\/img:pull"/);
    // access_token alone
    reg.token!.set({ field: 'access_token' });
    const only = (await fetchIn(netns, 'GET', `${reg.token!.realm}?service=${reg.token!.service}&scope=repository:bob/img:pull`, { headers: { Authorization: `Basic ${Buffer.from('bob:hunter2').toString('base64')}` } })).json() as Record<string, unknown>;
    assert.equal(only.token, undefined);
    assert.equal(typeof only.access_token, 'string');
    assert.equal((await reg.fetch('GET', '/v2/bob/img/manifests/v1', { as: null, headers: { Authorization: `Bearer ${String(only.access_token)}`, Accept: DOCKER_MANIFEST } })).status, 200);
    // a token the registry takes for 2 s only
    reg.token!.set({ field: 'both', expiresIn: 2, lifetime: 2 });
    const short = (await fetchIn(netns, 'GET', `${reg.token!.realm}?service=${reg.token!.service}&scope=repository:bob/img:pull`, { headers: { Authorization: `Basic ${Buffer.from('bob:hunter2').toString('base64')}` } })).json() as { token: string; expires_in: number };
    assert.equal(short.expires_in, 2);
    const withShort = () => reg.fetch('GET', '/v2/bob/img/manifests/v1', { as: null, headers: { Authorization: `Bearer ${short.token}`, Accept: DOCKER_MANIFEST } });
    assert.equal((await withShort()).status, 200);
    await new Promise((r) => setTimeout(r, 3500));
    assert.equal((await withShort()).status, 401);
    assert.ok(reg.token!.requests.some((e) => e.user === 'bob' && e.status === 200));
  });

  test('TLS on an address outside 127.0.0.0/8: verified with the CA, refused without', async () => {
    addLoopbackAddress(netns, '192.0.2.10');
    const reg = await startRegistry({ netns, tls: true, address: '192.0.2.10' });
    registries.push(reg);
    assert.equal(reg.url, `https://192.0.2.10:${reg.port}`);
    assert.equal((await reg.fetch('GET', '/v2/')).status, 200);
    await assert.rejects(fetchIn(netns, 'GET', `${reg.url}/v2/`), /self[- ]signed|unable to verify|certificate/i);
  });

  test('faulty proxy: pass, 500 on blobs, a blob cut midway, slow, redirect', async () => {
    const reg = await startRegistry({ netns });
    registries.push(reg);
    const image = await threeLayerImage('proxy');
    const pushed = await pushDirect(reg, 'test/proxied', 'v1', image);
    const proxy = await startFaultyProxy(netns, tempDir(), reg.host);
    const blobUrl = `http://${proxy.host}/v2/test/proxied/blobs/${pushed.layerDigests[0]}`;
    const ok = await fetchIn(netns, 'GET', blobUrl);
    assert.equal(sha256(ok.body), pushed.layerDigests[0]);
    const manifest = await fetchIn(netns, 'GET', `http://${proxy.host}/v2/test/proxied/manifests/v1`, { headers: { Accept: DOCKER_MANIFEST } });
    assert.equal(manifest.status, 200);
    proxy.set({ mode: 'blob-500' });
    assert.equal((await fetchIn(netns, 'GET', blobUrl)).status, 500);
    assert.equal((await fetchIn(netns, 'GET', `http://${proxy.host}/v2/test/proxied/manifests/v1`, { headers: { Accept: DOCKER_MANIFEST } })).status, 200);
    proxy.set({ mode: 'blob-close' });
    await assert.rejects(fetchIn(netns, 'GET', blobUrl), /aborted|socket hang up|ECONNRESET|premature/i);
    proxy.set({ mode: 'slow', bytesPerSecond: 4 * 1024 * 1024 });
    const slow = await fetchIn(netns, 'GET', blobUrl);
    assert.equal(sha256(slow.body), pushed.layerDigests[0]);
    proxy.set({ mode: 'redirect' });
    const redirect = await fetchIn(netns, 'GET', blobUrl);
    assert.equal(redirect.status, 307);
    assert.equal(redirect.headers.location, `http://${reg.host}/v2/test/proxied/blobs/${pushed.layerDigests[0]}`);
    // uploads through the proxy come back with the proxy's address
    proxy.set({ mode: 'pass' });
    const post = await fetchIn(netns, 'POST', `http://${proxy.host}/v2/test/proxied/blobs/uploads/`);
    assert.equal(post.status, 202);
    assert.ok(String(post.headers.location).startsWith(`http://${proxy.host}/`), String(post.headers.location));
    await proxy.stop();
  });
});
