// The containers' records, loaded before anything else of the area: the image store must know at
// construction which containers use its images, and the records (with the root filesystems) are
// what tell it. The service and its parts come after, in create-containers.ts.
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { ContainerPaths } from './container-paths.js';
import { ContainerStore } from './container-store.js';
import { containerUsage, type ContainerUsage } from './container-usage.js';

export interface ContainerRecords {
  paths: ContainerPaths;
  store: ContainerStore;
  /** the usage other areas ask before deleting what containers use */
  usage: ContainerUsage;
  /** the IDs of containers whose create was interrupted (a directory without a record), for recovery */
  incomplete: string[];
}

export function createContainerStore(deps: { dataRoot: string; execRoot: string; rootfs: RootfsStore }): ContainerRecords {
  const paths = new ContainerPaths(deps.dataRoot, deps.execRoot);
  const store = new ContainerStore(paths);
  const { incomplete } = store.load();
  return { paths, store, usage: containerUsage(store, deps.rootfs), incomplete };
}
