// A container as inspect and list show it: its record, and beside it what the record does not hold
// (the host paths of its log and /etc files, its layers, its exec instances, its networking, with
// size=1 its sizes).
import path from 'node:path';
import type { RootfsStore } from '../rootfs/rootfs-store.js';
import { directorySizeBytes } from '../lib/directory-size.js';
import type { ContainerImages } from './container-images.js';
import type { ContainerPaths } from './container-paths.js';
import type { ContainerRecord } from './container-record.js';
import { isActive } from './container-state.js';
import { networkSettings, type NetworkSettingsDeps, type NetworkSettingsView } from './network-settings.js';
import { HOSTNAME_FILE, HOSTS_FILE, RESOLV_CONF_FILE } from './spec/etc-files.js';

export interface ContainerView {
  record: ContainerRecord;
  /** Docker's State.Running: running, paused or restarting (isActive) */
  running: boolean;
  logPath: string;
  hostnamePath: string;
  hostsPath: string;
  resolvConfPath: string;
  /** exec instances created or running in it */
  execIds: string[];
  graphDriver: { lowerDir: string; mergedDir: string; upperDir: string; workDir: string };
  network: NetworkSettingsView;
  /** with size=1: bytes in the container's own layer, and with the image's */
  sizeRw?: number;
  sizeRootFs?: number;
}

export interface ContainerViewDeps {
  paths: ContainerPaths;
  rootfs: RootfsStore;
  images: ContainerImages;
  /** the exec instances of a container that have not ended */
  execIdsOf: (id: string) => string[];
  networks: NetworkSettingsDeps;
}

export function containerView(deps: ContainerViewDeps, record: ContainerRecord, withSize: boolean): ContainerView {
  const { paths, rootfs } = deps;
  const dir = paths.dir(record.id);
  const upper = rootfs.upperDir(record.id);
  const view: ContainerView = {
    record,
    running: isActive(record.state.status),
    logPath: paths.log(record).logPath,
    hostnamePath: path.join(dir, HOSTNAME_FILE),
    hostsPath: path.join(dir, HOSTS_FILE),
    resolvConfPath: path.join(dir, RESOLV_CONF_FILE),
    execIds: deps.execIdsOf(record.id),
    graphDriver: {
      lowerDir: rootfs.get(record.id)?.lowerDirs.join(':') ?? '',
      mergedDir: rootfs.mergedDir(record.id),
      upperDir: upper,
      workDir: rootfs.workDir(record.id),
    },
    network: networkSettings(deps.networks, record),
  };
  if (withSize) {
    view.sizeRw = directorySizeBytes(upper);
    view.sizeRootFs = view.sizeRw + imageSizeBytes(deps.images, record.image);
  }
  return view;
}

function imageSizeBytes(images: ContainerImages, imageId: string): number {
  try {
    return images.get(imageId).sizeBytes;
  } catch {
    // the image was deleted with force: its layers remain, uncounted
    return 0;
  }
}
