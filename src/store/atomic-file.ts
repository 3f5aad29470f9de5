// Crash-safe small files: write a temporary file beside the target, fsync it, rename it over the
// target, then fsync the directory so the rename itself survives a crash. A symlink at the target is refused.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o600): void {
  refuseSymlink(file);
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${randomBytes(6).toString('hex')}`);
  let fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, file);
  } catch (err) {
    if (fd >= 0) closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** The temporary name writeFileAtomic gives a file's next content: `.<name>.tmp-<12 hex>`. */
const TEMPORARY = /^\..+\.tmp-[0-9a-f]{12}$/;

/**
 * Deletes the temporary files writes to `dir` left when the process ended between the temporary
 * file and its rename (a kill): at load, before anyone writes there. A missing folder has none.
 */
export function removeTemporaryFiles(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const name of names) if (TEMPORARY.test(name)) rmSync(path.join(dir, name), { force: true });
}

function refuseSymlink(file: string): void {
  try {
    if (lstatSync(file).isSymbolicLink()) throw new Error(`refusing to write through the symlink ${file}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
