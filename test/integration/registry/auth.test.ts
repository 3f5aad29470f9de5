// Credentials: docker login, push and pull against a registry with htpasswd basic auth and one with
// bearer tokens from the test's token server (the `token` and the `access_token` fields, a token
// that expires in the middle of a pull), and the X-Registry-Auth header's encodings.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../../helpers/berthd.js';
import { startFaultyProxy, type Registry } from '../../helpers/registry.js';
import { bigLayerImage, imageOf, loadImage, pushDirect, threeLayerImage } from '../../helpers/registry-images.js';
import { busyboxLayer } from '../../helpers/busybox-image.js';
import { inspectImage, stage, unstage, type Stage } from './setup.js';

/** X-Registry-Auth in each encoding the clients send. */
function registryAuth(json: object, encoding: 'base64url' | 'base64'): string {
  const b = Buffer.from(JSON.stringify(json));
  return encoding === 'base64url' ? b.toString('base64url') : b.toString('base64');
}

describe('htpasswd registry', () => {
  let s: Stage | undefined;
  let reg: Registry;
  const password = 'pa55-word?>~';
  before(async () => {
    s = await stage();
    reg = await s.registry({ auth: 'htpasswd', users: { alice: password } });
    await loadImage(s.d, await threeLayerImage('htpasswd'), `${reg.host}/alice/app:v1`);
  });
  after(async () => {
    await unstage(s);
  });

  test('POST /auth: Login Succeeded with the right password, 401 with a wrong one', async () => {
    const ok = await s!.d.request('POST', '/auth', { json: { username: 'alice', password, serveraddress: reg.host } });
    assert.equal(ok.status, 200, ok.body);
    assert.equal((ok.json() as { Status: string }).Status, 'Login Succeeded');
    const wrong = await s!.d.request('POST', '/auth', { json: { username: 'alice', password: 'not-the-password', serveraddress: reg.host } });
    assert.equal(wrong.status, 401, wrong.body);
    assert.ok(typeof (wrong.json() as { message?: string }).message === 'string');
    assert.ok(!wrong.body.includes('not-the-password'), 'the password is not in the error');
  });

  test('POST /auth: a server address Go cannot parse is a 400 in dockerd\'s words (found by the API fuzzer)', async () => {
    const cases: Array<[string, string]> = [
      ['bad host:x', 'unable to parse server address: parse "https://bad host:x": invalid port ":x" after host'],
      ['a b', 'unable to parse server address: parse "https://a b": invalid character " " in host name'],
    ];
    for (const [serveraddress, message] of cases) {
      const res = await s!.d.request('POST', '/auth', { json: { username: 'alice', password, serveraddress } });
      assert.equal(res.status, 400, res.body);
      assert.deepEqual(res.json(), { message });
    }
  });

  test('docker push without credentials is refused, nothing reaches the registry', async () => {
    const push = await s!.d.docker(['push', `${reg.host}/alice/app:v1`], { timeoutMs: 60_000 });
    assert.notEqual(push.code, 0, push.stdout);
    assert.match(push.stderr + push.stdout, /no basic auth credentials|unauthorized|authentication required/i);
    assert.equal((await reg.fetch('GET', '/v2/alice/app/tags/list')).status, 404);
  });

  test('docker login with a wrong password fails with the registry\'s 401; with the right one, push and pull work', async () => {
    const d = s!.d;
    const wrong = await d.docker(['login', reg.host, '-u', 'alice', '--password-stdin'], { input: 'wrong-password\n' });
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /unauthorized|401/i);
    const login = await d.docker(['login', reg.host, '-u', 'alice', '--password-stdin'], { input: `${password}\n` });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Login Succeeded/);
    const push = await d.docker(['push', `${reg.host}/alice/app:v1`], { timeoutMs: 120_000 });
    assert.equal(push.code, 0, push.stderr + push.stdout);
    const rmi = await d.docker(['rmi', `${reg.host}/alice/app:v1`]);
    assert.equal(rmi.code, 0, rmi.stderr);
    const pull = await d.docker(['pull', `${reg.host}/alice/app:v1`], { timeoutMs: 120_000 });
    assert.equal(pull.code, 0, pull.stderr + pull.stdout);
    await d.docker(['logout', reg.host]);
    // logged out: the pull is refused
    const anon = await d.docker(['pull', `${reg.host}/alice/app:v1`], { timeoutMs: 60_000 });
    assert.notEqual(anon.code, 0);
    assert.match(anon.stderr, /no basic auth credentials|unauthorized|authentication required/i);
  });

  test('X-Registry-Auth: base64url without padding and standard base64 with padding both accepted; garbage is a 400', async () => {
    const d = s!.d;
    const pushed = await pushDirect(reg, 'alice/enc', 'v1', imageOf([await busyboxLayer()], { labels: { enc: '1' } }));
    // an email chosen so that the JSON encodes with '+' or '/' in standard base64 and with padding: the two encodings differ
    let creds = { username: 'alice', password, email: '', serveraddress: reg.host };
    for (let i = 0; !(/[+/]/.test(registryAuth(creds, 'base64')) && registryAuth(creds, 'base64').endsWith('=')); i++) {
      creds = { ...creds, email: `${'>'.repeat((i % 3) + 1)}?${'x'.repeat(Math.floor(i / 3))}@example.com` };
    }
    const url = `/images/create?fromImage=${encodeURIComponent(`${reg.host}/alice/enc`)}&tag=v1`;
    const url64 = registryAuth(creds, 'base64url').replace(/=+$/, '');
    const std64 = registryAuth(creds, 'base64');
    assert.notEqual(url64, std64.replace(/=+$/, ''), 'the two encodings differ for these credentials');
    assert.ok(std64.endsWith('='));
    for (const header of [url64, std64, `${url64}==`.slice(0, url64.length + ((4 - (url64.length % 4)) % 4))]) {
      await d.request('DELETE', `/images/${reg.host}/alice/enc:v1`);
      const r = await d.request('POST', url, { headers: { 'X-Registry-Auth': header }, timeoutMs: 60_000 });
      assert.equal(r.status, 200, r.body);
      assert.doesNotMatch(r.body, /errorDetail/, `${header}: ${r.body}`);
      assert.equal((await inspectImage(d, `${reg.host}/alice/enc:v1`))?.Id, pushed.configDigest);
    }
    for (const garbage of ['!!!not base64!!!', Buffer.from('{"username": "alice", "passw').toString('base64')]) {
      const r = await d.request('POST', url, { headers: { 'X-Registry-Auth': garbage }, timeoutMs: 30_000 });
      assert.equal(r.status, 400, `${garbage}: ${r.status} ${r.body}`);
    }
    // the push endpoint decodes it the same way
    const push = await d.request('POST', `/images/${reg.host}/alice/enc/push?tag=v1`, { headers: { 'X-Registry-Auth': '%%%' } });
    assert.equal(push.status, 400, push.body);
  });
});

describe('token registry', () => {
  let s: Stage | undefined;
  let reg: Registry;
  before(async () => {
    // one layer at a time, for the token that expires between two layers
    s = await stage({ config: { 'max-concurrent-downloads': 1 } });
    reg = await s.registry({ auth: 'token', users: { bob: 'token-pass-1' } });
    await loadImage(s.d, await threeLayerImage('token'), `${reg.host}/bob/app:v1`);
  });
  after(async () => {
    await unstage(s);
  });

  test('docker login through the token server; a wrong password is a 401', async () => {
    const d = s!.d;
    const wrong = await d.request('POST', '/auth', { json: { username: 'bob', password: 'nope', serveraddress: reg.host } });
    assert.equal(wrong.status, 401, wrong.body);
    const login = await d.docker(['login', reg.host, '-u', 'bob', '--password-stdin'], { input: 'token-pass-1\n' });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Login Succeeded/);
    assert.ok(reg.token!.requests.some((e) => e.user === 'bob' && e.status === 200), JSON.stringify(reg.token!.requests));
  });

  test('push and pull with bearer tokens; the token server saw the repository scopes', async () => {
    const d = s!.d;
    const push = await d.docker(['push', `${reg.host}/bob/app:v1`], { timeoutMs: 120_000 });
    assert.equal(push.code, 0, push.stderr + push.stdout);
    assert.ok(reg.token!.requests.some((e) => e.user === 'bob' && JSON.stringify(e.scopes).includes('repository:bob/app:') && JSON.stringify(e.scopes).includes('push')), JSON.stringify(reg.token!.requests));
    assert.equal((await d.docker(['rmi', `${reg.host}/bob/app:v1`])).code, 0);
    const pull = await d.docker(['pull', `${reg.host}/bob/app:v1`], { timeoutMs: 120_000 });
    assert.equal(pull.code, 0, pull.stderr + pull.stdout);
  });

  test('a token server that answers access_token alone', async () => {
    const d = s!.d;
    reg.token!.set({ field: 'access_token' });
    try {
      assert.equal((await d.docker(['rmi', `${reg.host}/bob/app:v1`])).code, 0);
      const pull = await d.docker(['pull', `${reg.host}/bob/app:v1`], { timeoutMs: 120_000 });
      assert.equal(pull.code, 0, pull.stderr + pull.stdout);
    } finally {
      reg.token!.set({ field: 'both' });
    }
  });

  test('a token that expires in the middle of a pull is fetched again', async () => {
    const d = s!.d;
    const image = await bigLayerImage(256 * 1024, 'expiring');
    await pushDirect(reg, 'bob/slow', 'v1', image);
    // each blob GET held 1 s, one layer at a time; the registry takes each token for 3 s, so the
    // pull outlives its first token (a margin of 2 s for a loaded machine: a token may not die in flight)
    const proxy = await startFaultyProxy(reg.netns, tempDir(), reg.host, { mode: 'delay', delayMs: 1000 });
    reg.token!.set({ expiresIn: 3, lifetime: 3 });
    try {
      await d.docker(['rmi', '-f', `${proxy.host}/bob/slow:v1`]);
      const login = await d.docker(['login', proxy.host, '-u', 'bob', '--password-stdin'], { input: 'token-pass-1\n' });
      assert.equal(login.code, 0, login.stderr);
      const before = reg.token!.requests.length;
      const pull = await d.docker(['pull', `${proxy.host}/bob/slow:v1`], { timeoutMs: 120_000 });
      assert.equal(pull.code, 0, pull.stderr + pull.stdout);
      assert.equal((await inspectImage(d, `${proxy.host}/bob/slow:v1`))?.Id, image.id);
      const during = reg.token!.requests.slice(before).filter((e) => JSON.stringify(e.scopes).includes('repository:bob/slow:pull'));
      assert.ok(during.length >= 2, `a new token mid-pull: ${JSON.stringify(during)}`);
    } finally {
      reg.token!.set({ expiresIn: 300, lifetime: undefined });
      await proxy.stop();
    }
  });
});
