// What containers use of other areas: the one port that images and volumes ask before they
// delete anything. It is given to those areas at construction and has no default, so an area
// that is not told who uses its objects does not compile.
import type { Digest } from '../image/digest.js';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { isActive } from './container-state.js';
import type { ContainerStore } from './container-store.js';

export interface ContainerUsage {
  /** The containers made from the image: active ones (running, paused, restarting) and the rest, by ID. */
  imageUsers(imageId: Digest): { active: string[]; inactive: string[] };
  /** The top layer of every container's root filesystem: image garbage collection keeps their stacks. */
  layersInUse(): Digest[];
  /** The containers (any state) that mount the volume, by ID. */
  volumeUsers(name: string): string[];
}

/** The usage the stored records and root filesystems show (records and mounts are loaded at construction). */
export function containerUsage(store: ContainerStore, rootfs: RootfsStore): ContainerUsage {
  return {
    imageUsers(imageId) {
      const active: string[] = [];
      const inactive: string[] = [];
      for (const r of store.all()) if (r.image === imageId) (isActive(r.state.status) ? active : inactive).push(r.id);
      return { active, inactive };
    },
    layersInUse: () => rootfs.list().flatMap((r) => (r.topLayer === null ? [] : [r.topLayer])),
    volumeUsers: (name) => store.all().flatMap((r) => (r.mountPoints.some((m) => m.Type === 'volume' && m.Name === name) ? [r.id] : [])),
  };
}
