// A minimal local volume driver for the container spec: a volume is the directory
// <root>/<name>/_data (0755), made on first use, with no record beyond it. The volumes issue
// replaces this with the real store (records, labels, reference counts, options).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';

export interface VolumeRef {
  name: string;
  /** the directory mounted into containers: <root>/<name>/_data */
  hostPath: string;
  driver: 'local';
}

/** Where mount resolution gets its volumes. */
export interface VolumeProvider {
  /** The volume of that name, created when missing; a new anonymous one (a random 64-hex name) when name is undefined. */
  ensure(name: string | undefined, opts: { labels?: Record<string, string>; noCopy?: boolean }): Promise<VolumeRef>;
  /** Deletes the volume and its content. */
  remove(name: string): Promise<void>;
}

export class LocalVolumes implements VolumeProvider {
  constructor(private readonly root: string) {}

  async ensure(name: string | undefined): Promise<VolumeRef> {
    const volumeName = name ?? randomBytes(32).toString('hex');
    const hostPath = path.join(this.root, volumeName, '_data');
    mkdirSync(hostPath, { recursive: true, mode: 0o755 });
    return { name: volumeName, hostPath, driver: 'local' };
  }

  async remove(name: string): Promise<void> {
    // a name is one path component (the mount parser refuses others): never a way out of the root
    if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new Error(`invalid volume name ${JSON.stringify(name)}`);
    await rm(path.join(this.root, name), { recursive: true, force: true });
  }
}
