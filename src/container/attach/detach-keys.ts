// Detach keys as Docker reads them (moby/term ToBytes): a comma-separated list of single characters
// and ctrl-<x> names, x one of @ a-z [ \ ] ^ _ (lower case only), ctrl-p,ctrl-q by default. The
// scanner passes the client's bytes through and reports the sequence once typed, holding back bytes
// that may be its start until the next bytes tell (as moby's term.NewEscapeProxy). Unlike the
// proxy, which only sees a sequence typed one byte per read, it finds one anywhere, so keys that
// arrive together in one packet still detach.
import { invalidParameter } from '../../errors.js';

export const DEFAULT_DETACH_KEYS = Buffer.from([0x10, 0x11]);

const CTRL_NAMES = '@abcdefghijklmnopqrstuvwxyz[\\]^_';

/** The key bytes of a spec; the default for an empty one. */
export function parseDetachKeys(spec: string | undefined): Buffer {
  if (spec === undefined || spec === '') return DEFAULT_DETACH_KEYS;
  const codes: number[] = [];
  for (const key of spec.split(',')) {
    if (key.length === 1) {
      const code = key.charCodeAt(0);
      // Go takes the first byte of the key's UTF-8; one byte only for ASCII
      if (code > 0x7f) throw invalidDetachKeys(spec);
      codes.push(code);
      continue;
    }
    const i = key.startsWith('ctrl-') && key.length === 6 ? CTRL_NAMES.indexOf(key[5]) : -1;
    if (i < 0) throw invalidDetachKeys(spec);
    codes.push(i);
  }
  return Buffer.from(codes);
}

function invalidDetachKeys(spec: string) {
  return invalidParameter(`Invalid detach keys (${spec}) provided`);
}

export interface ScanResult {
  /** The bytes to pass on. */
  data: Buffer;
  /** The sequence was typed: the bytes after it are dropped, and the session detaches. */
  detached: boolean;
}

export class DetachScanner {
  private readonly keys: Buffer;
  /** Bytes that match the start of the sequence, held until the next bytes tell. */
  private held: number[] = [];

  constructor(keys: Buffer) {
    if (keys.length === 0) throw new RangeError('detach keys must not be empty');
    this.keys = keys;
  }

  push(chunk: Buffer): ScanResult {
    const out: number[] = [];
    for (const byte of chunk) {
      this.held.push(byte);
      // give back held bytes from the front until what is held is again a start of the sequence
      while (this.held.length > 0 && !this.isPrefix()) out.push(this.held.shift() as number);
      if (this.held.length === this.keys.length) {
        this.held = [];
        return { data: Buffer.from(out), detached: true };
      }
    }
    return { data: Buffer.from(out), detached: false };
  }

  /** The held bytes, at the end of input: they were typed, not a sequence. */
  flush(): Buffer {
    const rest = Buffer.from(this.held);
    this.held = [];
    return rest;
  }

  private isPrefix(): boolean {
    for (let i = 0; i < this.held.length; i++) if (this.held[i] !== this.keys[i]) return false;
    return true;
  }
}
