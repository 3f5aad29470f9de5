// What dockerd makes in a new container's root filesystem at create (v20.10 create.go and
// populateVolumes): the working directory (a file in its place is refused), and in each new volume
// over a directory of the image, the image's files there (unless nocopy). Both read the layers
// through their read-only view, whose unmount is cheap; the root filesystem itself is mounted
// only for a working directory the image lacks (a read-write overlay's unmount syncs its
// filesystem's every dirty page: after a copy-up, all of the copy).
import { statSync } from 'node:fs';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import type { ContainerVolumes } from './container-volumes.js';
import { workingDirectory } from './spec/build-spec.js';
import { resolveInRoot } from './spec/in-root-path.js';
import { cleanPath, type MountPoint } from './spec/resolve-mounts.js';
import { copyImageContentToVolumes } from './spec/volume-copy-up.js';

export async function populateRootfs(rootfs: RootfsStore, volumes: Pick<ContainerVolumes, 'copyUpInto'>, id: string, what: { workingDir?: string; mountPoints: readonly MountPoint[] }): Promise<void> {
  if (!what.workingDir && !what.mountPoints.some((m) => m.copyData)) return;
  const view = await rootfs.lowerView(id);
  let makeWorkingDir = false;
  try {
    makeWorkingDir = what.workingDir !== undefined && what.workingDir !== '' && !isDirectory(resolveInRoot(view.mergedDir, cleanPath(what.workingDir)));
    await copyImageContentToVolumes(view.mergedDir, what.mountPoints, volumes);
  } finally {
    await view.release();
  }
  if (!makeWorkingDir) return;
  const lease = await rootfs.lease(id);
  try {
    workingDirectory(lease.mergedDir, what.workingDir);
  } finally {
    await lease.release();
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
