// Content addresses: sha256 digests written "sha256:<64 hex>", and Docker's layer chain IDs.
import { createHash } from 'node:crypto';
import { invalidParameter } from '../errors.js';

export type Digest = `sha256:${string}`;

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function isDigest(s: string): s is Digest {
  return DIGEST.test(s);
}

export function parseDigest(s: string): Digest {
  if (!isDigest(s)) throw invalidParameter(`invalid digest "${s}": expected sha256:<64 hex digits>`);
  return s;
}

export function sha256Digest(data: string | Uint8Array): Digest {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

export function digestHex(d: Digest): string {
  return d.slice('sha256:'.length);
}

/** ChainID(L0) = DiffID(L0); ChainID(Ln) = sha256("ChainID(Ln-1) DiffID(Ln)"), as the image spec defines it. */
export function chainIds(diffIds: readonly Digest[]): Digest[] {
  const out: Digest[] = [];
  for (const diffId of diffIds) {
    const parent = out.at(-1);
    out.push(parent === undefined ? diffId : sha256Digest(`${parent} ${diffId}`));
  }
  return out;
}
