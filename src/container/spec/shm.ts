// The /dev/shm of a container whose IPC others may join (IpcMode shareable): a tmpfs in the
// container's own directory, bind-mounted into it and into its joiners, as dockerd's setupIpcDirs
// mounts it (mode 1777, the ShmSize, nosuid, nodev, noexec).
import { mkdirSync } from 'node:fs';
import { runCommand } from '../../runtime/child-process.js';
import { isMountPoint } from '../../runtime/mount-table.js';

/** Mounts the tmpfs at dir (created if missing) unless it is mounted already. */
export async function mountShm(dir: string, sizeBytes: number): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((await isMountPoint(dir))) return;
  await runCommand('mount', ['-t', 'tmpfs', '-o', `mode=1777,size=${sizeBytes},nosuid,nodev,noexec`, 'shm', dir]);
}

/** Unmounts it (lazily: a joiner may still hold it); nothing when it is not mounted. */
export async function unmountShm(dir: string): Promise<void> {
  if (!(await isMountPoint(dir))) return;
  await runCommand('umount', ['-l', dir]);
}
