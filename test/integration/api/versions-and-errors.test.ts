// The API's front door: version prefixes, unknown routes, and the shape of every error.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Berthd } from '../../helpers/berthd.js';

let d: Berthd;
before(async () => {
  d = await Berthd.start();
});
after(() => d.stop());

function assertJsonError(r: { status: number; headers: Record<string, unknown>; json(): unknown }, status: number, message: string): void {
  assert.equal(r.status, status);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.deepEqual(r.json(), { message });
}

describe('version prefixes', () => {
  it('refuses a version below 1.25 with 400 and dockerd wording', async () => {
    assertJsonError(
      await d.request('GET', '/v1.24/version'),
      400,
      'client version 1.24 is too old. Minimum supported API version is 1.25, please upgrade your client to a newer version',
    );
    assertJsonError(
      await d.request('GET', '/v1.12/info'),
      400,
      'client version 1.12 is too old. Minimum supported API version is 1.25, please upgrade your client to a newer version',
    );
  });
  it('refuses a version above 1.41 with 400 and dockerd wording', async () => {
    assertJsonError(await d.request('GET', '/v1.42/version'), 400, 'client version 1.42 is too new. Maximum supported API version is 1.41');
    assertJsonError(await d.request('GET', '/v2.0/_ping'), 400, 'client version 2.0 is too new. Maximum supported API version is 1.41');
    const head = await d.request('HEAD', '/v2.0/_ping');
    assert.equal(head.status, 400);
    assert.equal(head.body, '');
  });
  it('answers an unknown path under a bad version with 404, as dockerd matches the route first', async () => {
    assertJsonError(await d.request('GET', '/v1.42/nope'), 404, 'page not found');
  });
  it('serves versions between 1.25 and 1.41', async () => {
    for (const v of ['1.25', '1.30', '1.39', '1.40', '1.41']) assert.equal((await d.request('GET', `/v${v}/version`)).status, 200, v);
  });
});

describe('unknown routes', () => {
  for (const [method, path] of [
    ['GET', '/nope'],
    ['GET', '/v1.41/nope'],
    ['GET', '/vabc/version'],
    ['DELETE', '/version'],
    ['HEAD', '/version'],
    ['POST', '/info'],
  ] as const) {
    it(`${method} ${path} → 404 page not found`, async () => {
      const r = await d.request(method, path);
      assert.equal(r.status, 404);
      if (method !== 'HEAD') assertJsonError(r, 404, 'page not found');
    });
  }
});

describe('open schema', () => {
  it('ignores unknown query parameters', async () => {
    assert.equal((await d.request('GET', '/version?bogus=1&x')).status, 200);
  });
  // found by the API fuzzer (test/fuzz): Node's 16 KiB limit on a request head answered 431 without JSON
  it('reads request heads of up to a megabyte, as dockerd', async () => {
    assert.equal((await d.request('GET', `/containers/json?bogus=${'a'.repeat(200_000)}`)).status, 200);
    assert.equal((await d.request('GET', '/containers/json', { headers: { 'X-Registry-Auth': 'a'.repeat(200_000) } })).status, 200);
  });
});

describe('streams', () => {
  // found by the API fuzzer (test/fuzz): each stream listens for shutdown, and an eleventh made
  // Node warn of a leak on the daemon's output
  it('a dozen at once are no warning', async () => {
    const clients = await Promise.all(
      Array.from({ length: 12 }, () => new Promise<net.Socket>((resolve) => {
        const c = net.connect(d.socket, () => c.write('GET /events HTTP/1.1\r\nHost: berth\r\n\r\n'));
        c.once('data', () => resolve(c));
      })),
    );
    for (const c of clients) c.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(d.log.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{')), []);
  });
});

describe('upgrade requests', () => {
  it('go through the same routing: an unknown path answers 404 JSON on the raw socket', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const c = net.connect(d.socket, () => {
        c.write('POST /v1.41/nope HTTP/1.1\r\nHost: berth\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      });
      let out = '';
      c.on('data', (b) => (out += b));
      c.on('end', () => resolve(out));
      c.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 404 Not Found\r\n/);
    assert.match(raw, /\r\n\r\n\{"message":"page not found"\}\n$/);
  });
});
