// Join tokens in swarmkit's format (ca/config.go GenerateJoinToken, ParseJoinToken):
// `SWMTKN-1-<digest>-<secret>`, the digest the SHA-256 of the root CA certificate's PEM in base 36
// (50 characters), the secret 16 random bytes in base 36 (25 characters). A joining node checks
// the digest against the CA a manager shows it before trusting it; the manager checks the secret
// against the worker's and the manager's (a rotation changes the secret only).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { EngineError } from '../../errors.js';
import { base36 } from '../ids.js';

const PREFIX = 'SWMTKN';
const VERSION = '1';
const DIGEST_LENGTH = 50;
const SECRET_LENGTH = 25;

export interface JoinToken {
  /** the root CA digest, base 36 */
  caDigest: string;
  secret: string;
}

/** The digest a token carries of a root CA certificate (its PEM text, as swarmkit digests it). */
export function caDigest(rootCaPem: string): string {
  return base36(createHash('sha256').update(rootCaPem).digest(), DIGEST_LENGTH);
}

export function newJoinTokenSecret(): string {
  return base36(randomBytes(16), SECRET_LENGTH);
}

export function formatJoinToken(token: JoinToken): string {
  return `${PREFIX}-${VERSION}-${token.caDigest}-${token.secret}`;
}

/** Parses a token as swarmkit does, with its messages (the CLI shows them as the join's error). */
export function parseJoinToken(text: string): JoinToken {
  const parts = text.split('-');
  if (parts.length !== 4 || parts[0] !== PREFIX || parts[1] !== VERSION) throw new EngineError('system', 'invalid join token');
  const [, , digest, secret] = parts as [string, string, string, string];
  if (digest.length !== DIGEST_LENGTH || secret.length !== SECRET_LENGTH || !/^[0-9a-z]+$/.test(digest + secret)) throw new EngineError('system', 'invalid join token');
  return { caDigest: digest, secret };
}

/** Whether two secrets are the same, in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
