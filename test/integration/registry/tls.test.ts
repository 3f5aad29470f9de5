// A registry over TLS with a certificate from a CA the test made, on an address outside
// 127.0.0.0/8 (added to the loopback of berthd's namespace: Docker takes 127.0.0.0/8 as insecure,
// so a registry there is reached without verification). Refused without the CA; with it in
// <certs-dir>/HOST:PORT/ca.crt (berthd's --certs-dir, /etc/docker/certs.d by default, read at
// each pull as dockerd does), push and pull work.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../helpers/berthd.js';
import { addLoopbackAddress, type Registry } from '../../helpers/registry.js';
import { loadImage, pushDirect, threeLayerImage } from '../../helpers/registry-images.js';
import { inspectImage, stage, unstage, type Stage } from './setup.js';

describe('TLS registry', () => {
  let s: Stage | undefined;
  let reg: Registry;
  let certsDir: string;
  before(async () => {
    certsDir = tempDir('berth-certs-d-');
    s = await stage({ args: ['--certs-dir', certsDir] });
    addLoopbackAddress(s.d.netns!, '192.0.2.10');
    reg = await s.registry({ tls: true, address: '192.0.2.10' });
  });
  after(async () => {
    await unstage(s, { expectErrors: true });
  });

  test('without the CA: pull and login refused with a certificate error', async () => {
    const d = s!.d;
    await pushDirect(reg, 'test/tls', 'v1', await threeLayerImage('tls'));
    const pull = await d.docker(['pull', `${reg.host}/test/tls:v1`], { timeoutMs: 60_000 });
    assert.notEqual(pull.code, 0, pull.stdout);
    assert.match(pull.stderr, /certificate|x509|self[- ]signed|unknown authority/i);
    assert.equal(await inspectImage(d, `${reg.host}/test/tls:v1`), undefined);
    const login = await d.request('POST', '/auth', { json: { username: 'tester', password: reg.users.tester, serveraddress: reg.host } });
    assert.notEqual(login.status, 200, login.body);
    assert.match(login.body, /certificate|x509|self[- ]signed|unknown authority/i);
  });

  test('with the CA in the certs directory: pull and push work', async () => {
    const d = s!.d;
    mkdirSync(path.join(certsDir, reg.host), { recursive: true });
    copyFileSync(reg.certs!.ca, path.join(certsDir, reg.host, 'ca.crt'));
    try {
      const pull = await d.docker(['pull', `${reg.host}/test/tls:v1`], { timeoutMs: 120_000 });
      assert.equal(pull.code, 0, pull.stderr + pull.stdout);
      const image = await threeLayerImage('tls-push');
      await loadImage(d, image, `${reg.host}/test/tls-pushed:v1`);
      const push = await d.docker(['push', `${reg.host}/test/tls-pushed:v1`], { timeoutMs: 120_000 });
      assert.equal(push.code, 0, push.stderr + push.stdout);
      const m = await reg.fetch('GET', '/v2/test/tls-pushed/manifests/v1', { headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json' } });
      assert.equal((m.json() as { config: { digest: string } }).config.digest, image.id);
    } finally {
      rmSync(path.join(certsDir, reg.host), { recursive: true, force: true });
    }
  });
});
