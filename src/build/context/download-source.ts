// ADD <url>: the file downloaded as dockerd's downloadSource does, into a directory of its own, mode
// 0600, its time the Last-Modified header's (else the epoch), named by the URL's last path
// component, else by Content-Disposition's filename, else nothing ('' here; the caller decides).
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { httpGet } from './http-get.js';

/** what dockerd names a download it cannot name */
export const UNNAMED_FILENAME = '__unnamed__';

export interface Download {
  /** the directory holding the file, to remove once copied */
  dir: string;
  /** the name the URL gives ('' when it gives none); the file itself is UNNAMED_FILENAME then */
  filename: string;
}

export async function downloadSource(url: string, stagingDir: string, opts: { signal?: AbortSignal; onProgress?: (currentBytes: number, totalBytes: number) => void }): Promise<Download> {
  const res = await httpGet(url, opts.signal);
  const filename = filenameFor(new URL(url).pathname, res);
  const dir = await mkdtemp(path.join(stagingDir, 'build-download-'));
  try {
    const file = path.join(dir, filename || UNNAMED_FILENAME);
    const total = Number(res.headers['content-length'] ?? 0);
    let current = 0;
    const counting = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        current += chunk.length;
        opts.onProgress?.(current, total > 0 ? total : 0);
        callback(null, chunk);
      },
    });
    await pipeline(res, counting, createWriteStream(file, { flags: 'wx', mode: 0o600 }), { signal: opts.signal });
    // an unparsable Last-Modified, or none, is Go's zero time, which dockerd's Chtimes makes the epoch
    const modified = Date.parse(res.headers['last-modified'] ?? '');
    const mtime = Number.isNaN(modified) ? 0 : modified / 1000;
    await utimes(file, mtime, mtime);
    return { dir, filename };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** dockerd's getFilenameForDownload. */
function filenameFor(urlPath: string, res: IncomingMessage): string {
  let decoded = urlPath;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    // Go would have refused the URL; kept as written
  }
  if (decoded !== '' && !decoded.endsWith('/')) return safeBase(decoded);
  const disposition = res.headers['content-disposition'];
  const name = disposition === undefined ? undefined : /;\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  const filename = name?.[1]?.replace(/\\(.)/g, '$1') ?? name?.[2] ?? '';
  return filename !== '' && !filename.endsWith('/') ? safeBase(filename) : '';
}

/** filepath.Base; '.' and '..' would name the directory itself or its parent, and name nothing. */
function safeBase(p: string): string {
  const base = path.posix.basename(p);
  return base === '.' || base === '..' || base === '' ? '' : base;
}
