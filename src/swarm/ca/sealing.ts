// Keys at rest, as swarmkit keeps them (ca/keyreadwriter.go, manager/encryption): a manager's
// data key (DEK) encrypts what the store holds that must stay secret (the root CA's key, the
// unlock key itself); under autolock the node's TLS key and the DEK are sealed on disk with the
// unlock key (the KEK), so that a restarted manager can do nothing until it is given that key
// again. AES-256-GCM, with a key derived by HKDF-SHA256 from the 32 bytes of either key.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { EngineError, invalidParameter } from '../../errors.js';

const UNLOCK_KEY_PREFIX = 'SWMKEY-1-';
const SEALED_LABEL = 'BERTH SEALED DATA';
const ENCRYPTED_PREFIX = 'dek1:';
const INFO = Buffer.from('berth swarm seal');

/** The 32 bytes of an unlock key (SWMKEY-1-<unpadded base64>); dockerd's 400 for anything else. */
export function unlockKeyBytes(text: string): Buffer {
  if (!text.startsWith(UNLOCK_KEY_PREFIX)) throw invalidParameter('invalid key string');
  const body = text.slice(UNLOCK_KEY_PREFIX.length);
  const bytes = Buffer.from(body, 'base64');
  if (!/^[A-Za-z0-9+/]{43}$/.test(body) || bytes.length !== 32) throw invalidParameter('invalid key string');
  return bytes;
}

export function newDataKey(): Buffer {
  return randomBytes(32);
}

function encryptWith(key: Buffer, plain: Buffer): Buffer {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', key, salt, INFO, 32)), iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([salt, iv, cipher.getAuthTag(), body]);
}

function decryptWith(key: Buffer, sealed: Buffer): Buffer | undefined {
  if (sealed.length < 44) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', key, sealed.subarray(0, 16), INFO, 32)), sealed.subarray(16, 28));
  decipher.setAuthTag(sealed.subarray(28, 44));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(44)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** `plain` sealed with an unlock key, as a PEM-like block (what goes to disk). */
export function seal(plain: Buffer | string, unlockKey: string): string {
  const b64 = encryptWith(unlockKeyBytes(unlockKey), Buffer.from(plain)).toString('base64');
  return `-----BEGIN ${SEALED_LABEL}-----\n${b64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${SEALED_LABEL}-----\n`;
}

export function isSealed(text: string): boolean {
  return text.startsWith(`-----BEGIN ${SEALED_LABEL}-----`);
}

/** What `seal` sealed; dockerd's 401 when the key is not the one it was sealed with. */
export function unseal(text: string, unlockKey: string): Buffer {
  const b64 = text.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  const plain = decryptWith(unlockKeyBytes(unlockKey), Buffer.from(b64, 'base64'));
  if (plain === undefined) throw new EngineError('unauthorized', 'swarm could not be unlocked: invalid key provided');
  return plain;
}

/** A secret of the store's, encrypted with the data key. */
export function encryptSecret(dek: Buffer, plain: string): string {
  return ENCRYPTED_PREFIX + encryptWith(dek, Buffer.from(plain)).toString('base64');
}

export function decryptSecret(dek: Buffer, text: string): string {
  if (!text.startsWith(ENCRYPTED_PREFIX)) throw new EngineError('system', 'a secret of the store is not encrypted');
  const plain = decryptWith(dek, Buffer.from(text.slice(ENCRYPTED_PREFIX.length), 'base64'));
  if (plain === undefined) throw new EngineError('system', "a secret of the store does not open with this manager's data key");
  return plain.toString('utf8');
}
