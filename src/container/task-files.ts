// A swarm task's secrets and configs, kept as dockerd keeps them (daemon/container_operations_unix.go
// setupSecretDir; container_unix.go: "on unix, configs are always considered secret"): files on a
// tmpfs of the container's own, never on disk, each with its owner and mode, the tmpfs remounted
// read-only once they are written. Each is bind-mounted read-only at its target by the spec's
// builder. They last until the container is removed: dockerd makes them again at each start from
// the swarm's store, which berth's containers area has not, so a task container runs once.
import { chmod, chown, mkdir, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter } from '../errors.js';
import { runCommand } from '../runtime/child-process.js';
import { isMountPoint } from '../runtime/mount-table.js';

/** A secret's or a config's content, and the file it becomes in the container. */
export interface TaskFile {
  /** an absolute path in the container */
  target: string;
  data: Buffer;
  /** decimal, as the swarm's FileTarget gives them */
  uid: string;
  gid: string;
  mode: number;
}

/** What the container's record keeps of a task file: its name on the tmpfs, and where it is mounted. */
export interface TaskFileMount {
  name: string;
  target: string;
}

const DECIMAL_ID = /^\d+$/;

/** A task file with its name on the tmpfs. */
export type NamedTaskFile = TaskFile & TaskFileMount;

/** Names the files on the tmpfs; throws for a file dockerd could not make (its Atoi of the IDs) before anything is made. */
export function nameTaskFiles(files: { secrets: readonly TaskFile[]; configs: readonly TaskFile[] }): NamedTaskFile[] {
  const named = [...files.secrets.map((f, i) => ({ ...f, name: `secret-${i}` })), ...files.configs.map((f, i) => ({ ...f, name: `config-${i}` }))];
  for (const f of named) {
    if (!path.posix.isAbsolute(f.target)) throw invalidParameter(`the target of a secret or config must be an absolute path: ${f.target}`);
    for (const id of [f.uid, f.gid]) if (!DECIMAL_ID.test(id)) throw invalidParameter(`invalid owner ${JSON.stringify(id)} for ${f.target}: a decimal ID is needed`);
  }
  return named;
}

/** Mounts the tmpfs at `dir`, writes each file as named, and remounts it read-only. */
export async function writeTaskFiles(dir: string, files: readonly NamedTaskFile[]): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await runCommand('mount', ['-t', 'tmpfs', '-o', 'mode=0700,nodev,nosuid,noexec', 'tmpfs', dir]);
  for (const f of files) {
    const file = path.join(dir, f.name);
    await writeFile(file, f.data, { mode: 0o600 });
    await chown(file, Number(f.uid), Number(f.gid));
    // after the chown, which clears set-id bits; and past the umask
    await chmod(file, f.mode);
  }
  // a remount takes the flags it is given: the ones above are given again
  await runCommand('mount', ['-o', 'remount,ro,nodev,nosuid,noexec', dir]);
}

/** Unmounts the tmpfs at `dir` and deletes the folder; nothing when neither is there. */
export async function removeTaskFiles(dir: string): Promise<void> {
  // the mount table names the real path (an exec root given as /var/run/… is under /run)
  let real: string;
  try {
    real = await realpath(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // lazily: what still holds the tmpfs keeps its files until it lets go, but the mount is gone at once
  if (await isMountPoint(real)) await runCommand('umount', ['-l', real]);
  await rm(real, { recursive: true, force: true });
}

/** Removes the task files of every container under `root` not in `known` (after a restart: removals it cut short). */
export async function sweepTaskFiles(root: string, known: ReadonlySet<string>): Promise<void> {
  let ids: string[];
  try {
    ids = await readdir(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const id of ids) if (!known.has(id)) await removeTaskFiles(path.join(root, id));
}
