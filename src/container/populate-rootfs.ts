// What dockerd makes in a new container's root filesystem at create (v20.10 create.go and
// populateVolumes): the working directory (a file in its place is refused), and in each new volume
// over a directory of the image, the image's files there (unless nocopy). The root filesystem is
// leased only when there is something to do.
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import type { ContainerVolumes } from './container-volumes.js';
import { workingDirectory } from './spec/build-spec.js';
import type { MountPoint } from './spec/resolve-mounts.js';
import { copyImageContentToVolumes } from './spec/volume-copy-up.js';

export async function populateRootfs(rootfs: RootfsStore, volumes: Pick<ContainerVolumes, 'copyUpInto'>, id: string, what: { workingDir?: string; mountPoints: readonly MountPoint[] }): Promise<void> {
  if (!what.workingDir && !what.mountPoints.some((m) => m.copyData)) return;
  const lease = await rootfs.lease(id);
  try {
    workingDirectory(lease.mergedDir, what.workingDir);
    await copyImageContentToVolumes(lease.mergedDir, what.mountPoints, volumes);
  } finally {
    await lease.release();
  }
}
