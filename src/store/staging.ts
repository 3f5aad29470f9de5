// Work in progress lives in a staging folder on the same filesystem as its destination, and
// becomes real with one rename. Whatever is still in staging at start-up was interrupted, and goes.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

export class Staging {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
    mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  /** A fresh, empty directory inside staging. */
  newDir(label: string): string {
    const dir = path.join(this.root, `${label}-${randomBytes(8).toString('hex')}`);
    mkdirSync(dir, { mode: 0o700 });
    return dir;
  }

  /** A path inside staging for a file not yet created. */
  newFile(label: string): string {
    return path.join(this.root, `${label}-${randomBytes(8).toString('hex')}`);
  }

  /** Takes `target` out of the tree with one rename, then deletes it: a crash midway leaves only staging debris. */
  discard(target: string): void {
    const trash = this.newFile('trash');
    try {
      renameSync(target, trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    rmSync(trash, { recursive: true, force: true });
  }

  /** Removes everything an interrupted operation left; called once at start-up. */
  sweep(): number {
    const leftovers = readdirSync(this.root);
    for (const name of leftovers) rmSync(path.join(this.root, name), { recursive: true, force: true });
    return leftovers.length;
  }
}
