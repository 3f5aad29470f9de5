// A path inside an image's root filesystem as the host reaches it, its symbolic links followed in
// the image's terms (dockerd's FollowSymlinkInScope): an absolute target starts again from the
// root, `..` never climbs above it. Used on a step container's root while nothing runs in it.
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { invalidParameter } from '../../errors.js';

/** Links followed in one resolution before it is refused, as Linux's MAXSYMLINKS. */
const MAX_LINKS = 40;

export async function scopedPath(root: string, containerPath: string): Promise<string> {
  const pending = containerPath.split('/').filter((c) => c !== '' && c !== '.');
  const resolved: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === '..') {
      resolved.pop();
      continue;
    }
    const host = path.join(root, ...resolved, name);
    const stats = await lstat(host).catch(() => undefined);
    if (stats?.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw invalidParameter(`too many levels of symbolic links resolving ${containerPath}`);
      const target = await readlink(host);
      if (target.startsWith('/')) resolved.length = 0;
      pending.unshift(...target.split('/').filter((c) => c !== '' && c !== '.'));
      continue;
    }
    resolved.push(name);
  }
  return path.join(root, ...resolved);
}
