import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Docker from 'dockerode';
import { VERSION_PREFIXES } from '../../helpers/api-versions.js';
import { Berthd } from '../../helpers/berthd.js';

let d: Berthd;
before(async () => {
  d = await Berthd.start();
});
after(() => d.stop());

for (const prefix of VERSION_PREFIXES) {
  describe(`ping at "${prefix || 'no prefix'}"`, () => {
    it('GET answers OK with the headers clients read', async () => {
      const r = await d.request('GET', `${prefix}/_ping`);
      assert.equal(r.status, 200);
      assert.equal(r.body, 'OK');
      assert.equal(r.headers['api-version'], '1.41');
      assert.equal(r.headers['ostype'], 'linux');
      assert.equal(r.headers['docker-experimental'], 'false');
      assert.equal(r.headers['builder-version'], '1');
      assert.equal(r.headers['cache-control'], 'no-cache, no-store, must-revalidate');
      assert.equal(r.headers['pragma'], 'no-cache');
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.match(String(r.headers['server']), /^berth\/\S+ \(linux\)$/);
    });
    it('HEAD answers the same headers and no body', async () => {
      const r = await d.request('HEAD', `${prefix}/_ping`);
      assert.equal(r.status, 200);
      assert.equal(r.body, '');
      assert.equal(r.headers['content-length'], '0');
      assert.equal(r.headers['api-version'], '1.41');
      assert.equal(r.headers['cache-control'], 'no-cache, no-store, must-revalidate');
    });
  });
}

it('POST /_ping is not a route', async () => {
  const r = await d.request('POST', '/_ping');
  assert.equal(r.status, 404);
  assert.deepEqual(r.json(), { message: 'page not found' });
});

it('dockerode pings', async () => {
  const docker = new Docker({ socketPath: d.socket });
  assert.equal(String(await docker.ping()), 'OK');
});
