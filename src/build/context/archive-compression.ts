// Build contexts and ADD's local archives: a tar, plain or compressed with gzip, bzip2 or xz, told by
// its first bytes (moby v20.10 pkg/archive DecompressStream; zstd came later, in 23.0, so a zstd
// stream is taken as a plain tar and fails as one). Node has gzip; bzip2 and xz go through Debian's
// commands, as dockerd itself runs `xz -d -c -q`.
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { EngineError } from '../../errors.js';
import { readHead } from '../../lib/stream-head.js';
import { pipeThroughCommand, type CommandError } from '../../runtime/child-process.js';

type Compression = 'none' | 'gzip' | 'bzip2' | 'xz';

const MAGIC: Array<[Compression, Buffer]> = [
  ['bzip2', Buffer.from([0x42, 0x5a, 0x68])],
  ['gzip', Buffer.from([0x1f, 0x8b, 0x08])],
  ['xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])],
];
/** zlib's output chunk: the default 16 KiB costs a trip to the thread pool every 16 KiB */
const ZLIB_CHUNK_BYTES = 256 * 1024;

function detectCompression(head: Buffer): Compression {
  for (const [compression, magic] of MAGIC) if (head.subarray(0, magic.length).equals(magic)) return compression;
  return 'none';
}

/** The stream decompressed as its first bytes say. */
export async function decompressArchive(source: Readable): Promise<Readable> {
  const { head, stream } = await readHead(source, 10);
  switch (detectCompression(head)) {
    case 'gzip': {
      const gunzip = createGunzip({ chunkSize: ZLIB_CHUNK_BYTES });
      pipeline(stream, gunzip).catch((err: NodeJS.ErrnoException) => gunzip.destroy(gzipError(err)));
      return gunzip;
    }
    case 'bzip2':
      // Go's compress/bzip2 wording, then the command's reason
      return pipeThroughCommand(stream, 'bzip2', ['-d', '-c', '-q'], { mapError: (err) => refused(err, `bzip2 data invalid: ${err.message}`) });
    case 'xz':
      // dockerd's own wording for its xz command (cmdStream): the exit status, then its stderr
      return pipeThroughCommand(stream, 'xz', ['-d', '-c', '-q'], { mapError: (err) => refused(err, `exit status ${err.exitCode}: ${err.stderr}`) });
    case 'none':
      return stream;
  }
}

/** The data refused by a command that ran; one that could not run, or was killed, keeps its own error. */
function refused(err: CommandError, message: string): Error {
  return err.exitCode === null ? err : new EngineError('system', message);
}

function gzipError(err: NodeJS.ErrnoException): Error {
  if (err.code === 'Z_BUF_ERROR') return new EngineError('system', 'unexpected EOF');
  return err.code?.startsWith('Z_') === true ? new EngineError('system', `gzip: ${err.message}`) : err;
}
