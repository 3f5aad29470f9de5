import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineError } from '../errors.js';
import {
  familiarName,
  familiarString,
  formatReference,
  isIdReference,
  isImageIdLike,
  parseNormalizedReference,
  repositoryOf,
  validateTag,
  withDefaultTag,
  type ImageReference,
} from './reference.js';

const HEX = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SHA = `sha256:${HEX}`;

describe('parseNormalizedReference', () => {
  // input → parts, full string, familiar string; as docker/distribution/reference in moby v20.10
  const valid: Array<[string, ImageReference, string, string]> = [
    ['busybox', { domain: 'docker.io', path: 'library/busybox' }, 'docker.io/library/busybox', 'busybox'],
    ['busybox:latest', { domain: 'docker.io', path: 'library/busybox', tag: 'latest' }, 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['docker.io/busybox', { domain: 'docker.io', path: 'library/busybox' }, 'docker.io/library/busybox', 'busybox'],
    ['docker.io/library/busybox:1.36', { domain: 'docker.io', path: 'library/busybox', tag: '1.36' }, 'docker.io/library/busybox:1.36', 'busybox:1.36'],
    ['index.docker.io/busybox', { domain: 'docker.io', path: 'library/busybox' }, 'docker.io/library/busybox', 'busybox'],
    ['index.docker.io/user/app:v1', { domain: 'docker.io', path: 'user/app', tag: 'v1' }, 'docker.io/user/app:v1', 'user/app:v1'],
    ['user/app', { domain: 'docker.io', path: 'user/app' }, 'docker.io/user/app', 'user/app'],
    ['a/b/c/d', { domain: 'docker.io', path: 'a/b/c/d' }, 'docker.io/a/b/c/d', 'a/b/c/d'],
    ['host:5000/a/b:tag', { domain: 'host:5000', path: 'a/b', tag: 'tag' }, 'host:5000/a/b:tag', 'host:5000/a/b:tag'],
    ['localhost/x', { domain: 'localhost', path: 'x' }, 'localhost/x', 'localhost/x'],
    ['localhost:5000/x:1', { domain: 'localhost:5000', path: 'x', tag: '1' }, 'localhost:5000/x:1', 'localhost:5000/x:1'],
    ['127.0.0.1:5000/x', { domain: '127.0.0.1:5000', path: 'x' }, '127.0.0.1:5000/x', '127.0.0.1:5000/x'],
    ['Registry.Example.COM/app', { domain: 'Registry.Example.COM', path: 'app' }, 'Registry.Example.COM/app', 'Registry.Example.COM/app'],
    ['quay.io/docker.io/x', { domain: 'quay.io', path: 'docker.io/x' }, 'quay.io/docker.io/x', 'quay.io/docker.io/x'],
    // without ".", ":" or "localhost" the first component is a path on Docker Hub
    ['localhostx/y', { domain: 'docker.io', path: 'localhostx/y' }, 'docker.io/localhostx/y', 'localhostx/y'],
    ['myregistry/app', { domain: 'docker.io', path: 'myregistry/app' }, 'docker.io/myregistry/app', 'myregistry/app'],
    [`busybox@${SHA}`, { domain: 'docker.io', path: 'library/busybox', digest: SHA }, `docker.io/library/busybox@${SHA}`, `busybox@${SHA}`],
    [`busybox:1@${SHA}`, { domain: 'docker.io', path: 'library/busybox', tag: '1', digest: SHA }, `docker.io/library/busybox:1@${SHA}`, `busybox:1@${SHA}`],
    [`h.io/a@sha512:${'ab'.repeat(64)}`, { domain: 'h.io', path: 'a', digest: `sha512:${'ab'.repeat(64)}` }, `h.io/a@sha512:${'ab'.repeat(64)}`, `h.io/a@sha512:${'ab'.repeat(64)}`],
    // separators: one period, one or two underscores, any run of dashes
    ['a.b_c__d---e', { domain: 'docker.io', path: 'library/a.b_c__d---e' }, 'docker.io/library/a.b_c__d---e', 'a.b_c__d---e'],
    // tags: word characters, then up to 127 of word characters, "." and "-"
    ['a:_A.b-C', { domain: 'docker.io', path: 'library/a', tag: '_A.b-C' }, 'docker.io/library/a:_A.b-C', 'a:_A.b-C'],
    [`a:${'t'.repeat(128)}`, { domain: 'docker.io', path: 'library/a', tag: 't'.repeat(128) }, `docker.io/library/a:${'t'.repeat(128)}`, `a:${'t'.repeat(128)}`],
    // hex strings shorter than an ID are names
    ['abc', { domain: 'docker.io', path: 'library/abc' }, 'docker.io/library/abc', 'abc'],
    [HEX.slice(1), { domain: 'docker.io', path: `library/${HEX.slice(1)}` }, `docker.io/library/${HEX.slice(1)}`, HEX.slice(1)],
    // the longest name: "docker.io/library/" and 237 characters make 255
    ['n'.repeat(237), { domain: 'docker.io', path: `library/${'n'.repeat(237)}` }, `docker.io/library/${'n'.repeat(237)}`, 'n'.repeat(237)],
    // Docker's grammar sees no domain here ("_" is not allowed in one): the whole is a path
    ['a_b.c/d', { domain: '', path: 'a_b.c/d' }, 'a_b.c/d', 'a_b.c/d'],
  ];
  for (const [input, parts, full, familiar] of valid) {
    it(`parses ${input.length > 80 ? input.slice(0, 40) + '…' : input}`, () => {
      const ref = parseNormalizedReference(input);
      assert.deepEqual(ref, parts);
      assert.equal(formatReference(ref), full);
      assert.equal(familiarString(ref), familiar);
      // round trips: the full and the familiar strings parse back to the same reference
      assert.deepEqual(parseNormalizedReference(full), parts);
      assert.deepEqual(parseNormalizedReference(familiar), parts);
    });
  }

  // input → the message dockerd gives, word for word
  const invalid: Array<[string, string]> = [
    ['', 'invalid reference format'],
    ['Busybox', 'invalid reference format: repository name must be lowercase'],
    ['user/App:tag', 'invalid reference format: repository name must be lowercase'],
    ['host:5000/UPPER', 'invalid reference format: repository name must be lowercase'],
    // the check reads up to the first ":", so an upper-case digest algorithm without a tag falls in it
    [`a@SHA256:${HEX}`, 'invalid reference format: repository name must be lowercase'],
    // a first component with "." that the domain grammar refuses becomes a path, checked by Parse
    ['A_B.c/d', 'repository name must be lowercase'],
    [HEX, `invalid repository name (${HEX}), cannot specify 64-byte hexadecimal strings`],
    ['busybox:bad:tag', 'invalid reference format'],
    ['busybox:', 'invalid reference format'],
    ['busybox:-x', 'invalid reference format'],
    [`a:${'t'.repeat(129)}`, 'invalid reference format'],
    ['busybox@', 'invalid reference format'],
    ['busybox@sha256:abc', 'invalid reference format'],
    ['a//b', 'invalid reference format'],
    ['a/', 'invalid reference format'],
    ['/a', 'invalid reference format'],
    ['-a', 'invalid reference format'],
    ['a-', 'invalid reference format'],
    ['a..b', 'invalid reference format'],
    ['a___b', 'invalid reference format'],
    ['a b', 'invalid reference format'],
    ['a:b/c', 'invalid reference format'],
    ['-h.io/a', 'invalid reference format'],
    ['h.io:port/a', 'invalid reference format'],
    ['n'.repeat(238), 'repository name must not be more than 255 characters'],
    [`h.io/${'n'.repeat(251)}`, 'repository name must not be more than 255 characters'],
    // digests are then checked as go-digest v1.0.0 does
    [`a@sha256:${HEX.slice(2)}`, 'invalid checksum digest length'],
    [`a@sha256:${HEX.toUpperCase()}`, 'invalid checksum digest format'],
    [`a:t@SHA256:${HEX}`, 'invalid checksum digest format'],
    [`a@md5:${HEX.slice(32)}`, 'unsupported digest algorithm'],
    [`a@constructor:${HEX}`, 'unsupported digest algorithm'],
  ];
  for (const [input, message] of invalid) {
    it(`refuses ${JSON.stringify(input.length > 80 ? input.slice(0, 40) + '…' : input)}: ${message}`, () => {
      assert.throws(() => parseNormalizedReference(input), (err: unknown) => {
        assert.ok(err instanceof EngineError);
        assert.equal(err.kind, 'invalidParameter');
        assert.equal(err.message, message);
        return true;
      });
    });
  }

  it('refuses long near-misses promptly (no catastrophic backtracking)', () => {
    for (const input of [`${'a'.repeat(50_000)}!`, `${'a-'.repeat(25_000)}!`, `${'a.'.repeat(25_000)}a!`, `${'a/'.repeat(25_000)}!`]) {
      assert.throws(() => parseNormalizedReference(input), /invalid reference format/);
    }
  });
});

describe('withDefaultTag', () => {
  it('adds "latest" to a bare name, as Docker\'s TagNameOnly', () => {
    const ref = withDefaultTag(parseNormalizedReference('nope'));
    assert.deepEqual(ref, { domain: 'docker.io', path: 'library/nope', tag: 'latest' });
    // the name in dockerd's "No such image: nope:latest"
    assert.equal(familiarString(ref), 'nope:latest');
  });

  it('keeps a tag or a digest as it is', () => {
    for (const s of ['a:1', `a@${SHA}`, `a:1@${SHA}`]) {
      const ref = parseNormalizedReference(s);
      assert.equal(withDefaultTag(ref), ref);
    }
  });
});

describe('familiarName', () => {
  const names: Array<[string, string]> = [
    ['busybox:1', 'busybox'],
    [`docker.io/library/busybox@${SHA}`, 'busybox'],
    ['user/app', 'user/app'],
    ['localhost/x:1', 'localhost/x'],
    ['host:5000/library/x', 'host:5000/library/x'],
    // v20.10 trims "library/" from nested paths too, so this one does not round-trip
    ['docker.io/library/a/b', 'a/b'],
  ];
  for (const [input, name] of names) {
    it(`of ${input} is ${name}`, () => {
      assert.equal(familiarName(parseNormalizedReference(input)), name);
    });
  }
});

describe('validateTag', () => {
  for (const t of ['latest', '1', '_', 'A.b-C_d', 'x'.repeat(128)]) {
    it(`accepts ${t.slice(0, 20)}`, () => assert.doesNotThrow(() => validateTag(t)));
  }
  for (const t of ['', 'bad:tag', '.x', '-x', 'a/b', 'a@b', 'x'.repeat(129), 'é']) {
    it(`refuses ${JSON.stringify(t.slice(0, 20))} with "invalid tag format"`, () => {
      assert.throws(() => validateTag(t), (err: unknown) => {
        assert.ok(err instanceof EngineError);
        assert.equal(err.kind, 'invalidParameter');
        assert.equal(err.message, 'invalid tag format');
        return true;
      });
    });
  }
});

describe('isImageIdLike', () => {
  for (const s of [SHA, HEX, 'sha256:e3b0', 'e3b0', 'e', 'sha256:e']) {
    it(`takes ${s} as an ID or ID prefix`, () => assert.equal(isImageIdLike(s), true));
  }
  for (const s of ['', 'sha256:', 'busybox', 'E3B0', `${HEX}0`, `sha256:${HEX}0`, 'sha512:e3b0', 'e3b0:latest']) {
    it(`does not take ${JSON.stringify(s)}`, () => assert.equal(isImageIdLike(s), false));
  }
});

describe('isIdReference', () => {
  const id = `sha256:${HEX}`;
  it('takes the full ID, with or without sha256:, and a prefix of it', () => {
    for (const s of [id, HEX, 'e3b0', 'sha256:e3b0']) assert.equal(isIdReference(s, id), true, s);
  });
  it('does not take a name, even one that looks like hex, when the ID does not start with it', () => {
    for (const s of ['busybox', 'cafe', 'e3b0:latest']) assert.equal(isIdReference(s, id), false, s);
  });
});

describe('repositoryOf', () => {
  it('drops the tag and the digest of a stored reference', () => {
    assert.equal(repositoryOf('docker.io/library/busybox:latest'), 'docker.io/library/busybox');
    assert.equal(repositoryOf(`host:5000/a/b@sha256:${HEX}`), 'host:5000/a/b');
  });
});
