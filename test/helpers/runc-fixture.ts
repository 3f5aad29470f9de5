// A root filesystem from the busybox test image's layer and a Runc of its own, for tests that drive
// runc directly; cleanUp() deletes every container the test recorded in `created`, the cgroup
// parent they were made under (runc removes only each container's own), and the folder.
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { applyLayer } from '../../src/image/archive/layer-applier.js';
import { Runc } from '../../src/runtime/runc.js';
import { tempDir } from './berthd.js';
import { busyboxLayer } from './busybox-image.js';

export class RuncFixture {
  readonly dir: string;
  readonly rootfs: string;
  readonly runc: Runc;
  readonly created = new Set<string>();
  private readonly cgroupParent: string;

  private constructor(dir: string, cgroupParent: string) {
    this.dir = dir;
    this.rootfs = path.join(dir, 'rootfs');
    this.cgroupParent = cgroupParent;
    this.runc = new Runc({ stateDir: path.join(dir, 'state'), logDir: path.join(dir, 'logs'), timeoutMs: 10_000 });
  }

  static async create(prefix: string, cgroupParent: string): Promise<RuncFixture> {
    const f = new RuncFixture(tempDir(prefix), cgroupParent);
    mkdirSync(f.rootfs);
    await applyLayer(Readable.from([await busyboxLayer()]), { target: f.rootfs, lowerDirs: [] });
    return f;
  }

  async cleanUp(): Promise<void> {
    for (const id of this.created) {
      try {
        await this.runc.delete(id, { force: true });
      } catch {
        // already gone
      }
    }
    for (const hierarchy of existsSync('/sys/fs/cgroup') ? readdirSync('/sys/fs/cgroup') : []) {
      const parent = path.join('/sys/fs/cgroup', hierarchy, this.cgroupParent);
      if (existsSync(parent)) rmdirSync(parent);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
