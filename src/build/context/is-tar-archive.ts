// ADD extracts a local file only if it is a tar, plain or compressed (dockerd's isArchivePath): its
// first header must read, which Go's archive/tar grants a block whose checksum is right.
import { createReadStream } from 'node:fs';
import { readHead } from '../../lib/stream-head.js';
import { decompressArchive } from './archive-compression.js';

const BLOCK = 512;

export async function isTarArchive(file: string): Promise<boolean> {
  const source = createReadStream(file);
  try {
    const tar = await decompressArchive(source);
    try {
      const { head } = await readHead(tar, BLOCK);
      return isTarHeader(head.subarray(0, BLOCK));
    } finally {
      tar.destroy();
    }
  } catch {
    return false;
  } finally {
    source.destroy();
  }
}

/** A whole header block with the checksum Go accepts (the unsigned or the signed sum, the field counted as spaces); an all-zero block is the archive's end. */
function isTarHeader(block: Buffer): boolean {
  if (block.length < BLOCK || block.every((b) => b === 0)) return false;
  const field = block.subarray(148, 156).toString('latin1').replace(/^[ \0]+|[ \0]+$/g, '');
  if (!/^[0-7]*$/.test(field)) return false;
  const stored = field === '' ? 0 : parseInt(field, 8);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : block[i];
    unsigned += b;
    signed += b >= 0x80 ? b - 0x100 : b;
  }
  return stored === unsigned || stored === signed;
}
