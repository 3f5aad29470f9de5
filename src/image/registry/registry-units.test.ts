import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAuthHeader } from './auth-header.js';
import { parseManifest, selectPlatform, type Descriptor } from './manifests.js';
import { parseChallenge, registryReason } from './registry-client.js';
import { endpointsFor, isInsecure } from './registry-hosts.js';

const creds = { username: 'alice', password: 's3cret/+?', serveraddress: '127.0.0.1:5000' };
const json = JSON.stringify(creds);

describe('X-Registry-Auth', () => {
  it('takes base64url and standard base64, padded or not', () => {
    for (const text of [Buffer.from(json).toString('base64url'), Buffer.from(json).toString('base64'), Buffer.from(json).toString('base64').replace(/=+$/, '')]) {
      assert.deepEqual(decodeAuthHeader(text), creds);
    }
    assert.deepEqual(decodeAuthHeader(Buffer.from('{"identitytoken":"tok"}').toString('base64url')), { identitytoken: 'tok' });
    assert.equal(decodeAuthHeader(undefined), undefined);
    assert.equal(decodeAuthHeader(''), undefined);
  });

  it('refuses what is not base64 JSON with a 400 that names no credential', () => {
    for (const bad of ['not base64 !!!', Buffer.from('hello').toString('base64'), Buffer.from('[1]').toString('base64')]) {
      assert.throws(() => decodeAuthHeader(bad), (err: Error & { kind?: string }) => err.kind === 'invalidParameter' && !err.message.includes('hello'));
    }
  });
});

describe('registry hosts', () => {
  it('takes 127.0.0.0/8, localhost and the listed registries and CIDRs as insecure', () => {
    assert.ok(isInsecure('127.0.0.1:5000', []));
    assert.ok(isInsecure('localhost:5000', []));
    assert.ok(isInsecure('10.1.2.3:443', ['10.0.0.0/8']));
    assert.ok(isInsecure('reg.example:5000', ['reg.example:5000']));
    assert.ok(!isInsecure('192.0.2.10:5000', []));
  });

  it('tries HTTPS then HTTP for an insecure registry, HTTPS alone otherwise, mirrors first for Docker Hub', () => {
    const settings = { insecureRegistries: [], mirrors: ['http://mirror.example:5000'], certsDir: '/nonexistent' };
    assert.deepEqual(endpointsFor('127.0.0.1:5000', settings).map((e) => e.url), ['https://127.0.0.1:5000', 'http://127.0.0.1:5000']);
    assert.deepEqual(endpointsFor('192.0.2.10:5000', settings).map((e) => e.url), ['https://192.0.2.10:5000']);
    assert.deepEqual(endpointsFor('docker.io', settings).map((e) => e.url), ['http://mirror.example:5000', 'https://registry-1.docker.io']);
  });
});

describe('registry answers', () => {
  it('reads challenges and errors as dockerd words them', () => {
    assert.deepEqual(parseChallenge('Bearer realm="https://auth.example/token",service="reg",scope="repository:a:pull"'), {
      scheme: 'bearer',
      params: { realm: 'https://auth.example/token', service: 'reg', scope: 'repository:a:pull' },
    });
    assert.deepEqual(parseChallenge('Basic realm="basic-realm"'), { scheme: 'basic', params: { realm: 'basic-realm' } });
    assert.equal(registryReason('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}', 404), 'manifest unknown: manifest unknown');
    assert.equal(registryReason('<html>', 502), 'unexpected status 502');
  });

  it('refuses schema 1, and picks a list entry by platform', () => {
    assert.throws(() => parseManifest(Buffer.from('{"schemaVersion":1,"name":"x"}'), undefined), /schema 1/);
    const d = (architecture: string, variant?: string): Descriptor => ({ mediaType: '', digest: `sha256:${'a'.repeat(64)}`, size: 1, platform: { os: 'linux', architecture, ...(variant ? { variant } : {}) } });
    const list = [d('arm64', 'v8'), d('amd64')];
    assert.equal(selectPlatform(list, { os: 'linux', architecture: 'amd64' }), list[1]);
    assert.equal(selectPlatform(list, { os: 'linux', architecture: 'arm64' }), list[0]);
    assert.equal(selectPlatform(list, { os: 'linux', architecture: 's390x' }), undefined);
  });
});
