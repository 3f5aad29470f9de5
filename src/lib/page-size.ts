// The kernel's page size without a child process (getconf): the kernel hands it to every process in
// its auxiliary vector, which /proc/self/auxv shows as pairs of native words (type, value).
import { readFileSync } from 'node:fs';
import os from 'node:os';

const AT_NULL = 0;
const AT_PAGESZ = 6;
const FALLBACK_BYTES = 4096;
/** Node's 32-bit platforms; the others have 64-bit words */
const WORD_BYTES = ['arm', 'ia32', 'mips', 'mipsel', 'ppc'].includes(process.arch) ? 4 : 8;

let cached: number | undefined;

/** The page size, read once; 4096 where the vector cannot be read or holds no sensible one. */
export function pageSizeBytes(): number {
  if (cached === undefined) {
    let found: number | undefined;
    try {
      found = auxvPageSize(readFileSync('/proc/self/auxv'), WORD_BYTES, os.endianness());
    } catch {
      found = undefined;
    }
    cached = found !== undefined && Number.isInteger(found) && found >= FALLBACK_BYTES ? found : FALLBACK_BYTES;
  }
  return cached;
}

/** AT_PAGESZ's value in an auxiliary vector of `wordBytes`-byte words, if it holds one. */
export function auxvPageSize(auxv: Buffer, wordBytes: 4 | 8, endianness: 'LE' | 'BE'): number | undefined {
  const word = (offset: number): number => {
    if (wordBytes === 4) return endianness === 'LE' ? auxv.readUInt32LE(offset) : auxv.readUInt32BE(offset);
    // values beyond 2^53 (pointers) lose precision; types and the page size never are that big
    return Number(endianness === 'LE' ? auxv.readBigUInt64LE(offset) : auxv.readBigUInt64BE(offset));
  };
  for (let offset = 0; offset + 2 * wordBytes <= auxv.length; offset += 2 * wordBytes) {
    const type = word(offset);
    if (type === AT_NULL) return undefined;
    if (type === AT_PAGESZ) return word(offset + wordBytes);
  }
  return undefined;
}
