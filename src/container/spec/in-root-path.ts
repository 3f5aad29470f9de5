// A path inside a container's root filesystem, resolved on the host as the container would see it:
// symbolic links are followed with the root filesystem as `/` (an absolute target starts again at
// the root, `..` stops there), so that no link in an image reaches a host file (moby's
// symlink.FollowSymlinkInScope).
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

const MAX_LINKS = 255;

/** The host path of `p` (absolute, inside the container) under `root`; it may not exist. */
export function resolveInRoot(root: string, p: string): string {
  let links = 0;
  // components still to walk, and those resolved so far (relative to root)
  const pending = p.split('/').filter((c) => c !== '' && c !== '.');
  const done: string[] = [];
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '..') {
      done.pop();
      continue;
    }
    const candidate = path.join(root, ...done, part);
    let isLink = false;
    try {
      isLink = lstatSync(candidate).isSymbolicLink();
    } catch {
      // missing: the rest is taken as it is
    }
    if (!isLink) {
      done.push(part);
      continue;
    }
    if (++links > MAX_LINKS) throw new Error(`too many links in ${p}`);
    const target = readlinkSync(candidate);
    if (target.startsWith('/')) done.length = 0;
    pending.unshift(...target.split('/').filter((c) => c !== '' && c !== '.'));
  }
  return path.join(root, ...done);
}
