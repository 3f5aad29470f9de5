// Join tokens against a real swarm: the root CA and worker token a dockerd 20.10 showed
// (dockerd-swarm.fixture.ts), so that the digest is swarmkit's and not only berth's idea of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TRUST_ROOT, WORKER_TOKEN } from './dockerd-swarm.fixture.js';
import { caDigest, formatJoinToken, newJoinTokenSecret, parseJoinToken, sameSecret } from './join-token.js';

// the token's parts
const REAL_DIGEST = '6993ax97o6f2jwutt1q84zllcu5wfe3bha2wy8vju1ofzx70br';
const REAL_SECRET = '1w6a2qemwpey8jnfolgbaw3re';

function refused(text: string): void {
  assert.throws(() => parseJoinToken(text), (err: unknown) => {
    assert.equal((err as Error).message, 'invalid join token');
    // dockerd answers a join with a malformed token 500
    assert.equal((err as { kind: string }).kind, 'system');
    return true;
  }, text);
}

describe('caDigest', () => {
  it("is the digest a real swarm's token carries of its root CA's PEM", () => {
    assert.equal(caDigest(TRUST_ROOT), REAL_DIGEST);
  });

  it('digests the PEM text as given: without its last newline it is another digest', () => {
    // swarmkit digests the PEM bytes it keeps; a client comparing tokens must use TrustRoot as is
    assert.notEqual(caDigest(TRUST_ROOT.trimEnd()), REAL_DIGEST);
  });

  it('is 50 base-36 characters, zero-padded', () => {
    for (const pem of ['', 'x', TRUST_ROOT]) assert.match(caDigest(pem), /^[0-9a-z]{50}$/);
  });
});

describe('parseJoinToken and formatJoinToken', () => {
  it("read a real swarm's token, and write it back the same", () => {
    const token = parseJoinToken(WORKER_TOKEN);
    assert.deepEqual(token, { caDigest: REAL_DIGEST, secret: REAL_SECRET });
    assert.equal(formatJoinToken(token), WORKER_TOKEN);
  });

  it('round-trip a new token', () => {
    const token = { caDigest: caDigest(TRUST_ROOT), secret: newJoinTokenSecret() };
    const text = formatJoinToken(token);
    assert.match(text, /^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    assert.deepEqual(parseJoinToken(text), token);
  });

  it('refuse malformed tokens with swarmkit\'s "invalid join token"', () => {
    const [digest, secret] = [REAL_DIGEST, REAL_SECRET];
    for (const text of [
      '',
      'SWMTKN',
      `SWMTKX-1-${digest}-${secret}`, // prefix
      `swmtkn-1-${digest}-${secret}`,
      `SWMTKN-3-${digest}-${secret}`, // version
      `SWMTKN-2-${digest}-${secret}`, // 2 is FIPS, with 5 parts
      `SWMTKN-1-${digest}`, // 3 parts
      `SWMTKN-1-${digest}-${secret}-extra`, // 5 parts
      `SWMTKN-1-${digest.slice(1)}-${secret}`, // lengths
      `SWMTKN-1-${digest}0-${secret}`,
      `SWMTKN-1-${digest}-${secret.slice(1)}`,
      `SWMTKN-1-${digest}-${secret}0`,
      `SWMTKN-1-${digest.toUpperCase()}-${secret}`, // base 36 in lower case only
      `SWMTKN-1-${digest}-${secret.toUpperCase()}`,
      `SWMTKN-1-${digest.slice(0, -1)}_-${secret}`,
      ` ${WORKER_TOKEN}`,
    ]) {
      refused(text);
    }
  });
});

describe('newJoinTokenSecret', () => {
  it('is 25 base-36 characters, new each time', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newJoinTokenSecret()));
    assert.equal(secrets.size, 50);
    for (const s of secrets) assert.match(s, /^[0-9a-z]{25}$/);
  });
});

describe('sameSecret', () => {
  it('tells equal secrets from others, of any length', () => {
    assert.equal(sameSecret(REAL_SECRET, `${REAL_SECRET}`), true);
    assert.equal(sameSecret(REAL_SECRET, newJoinTokenSecret()), false);
    assert.equal(sameSecret(REAL_SECRET, REAL_SECRET.slice(1)), false);
    assert.equal(sameSecret('', ''), true);
  });
});
