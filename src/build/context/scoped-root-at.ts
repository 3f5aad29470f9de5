// A ScopedRoot over a host directory with no mounts of its own to map: a build context, an image's
// or a build step's root file system.
import { constants, openSync } from 'node:fs';
import { ScopedRoot } from '../../container/archive/scoped-root.js';

export function scopedRootAt(dir: string): ScopedRoot {
  return new ScopedRoot({ rootFd: openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY), dataMounts: new Set(), mountSources: new Map() });
}
