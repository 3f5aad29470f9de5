// A path inside a directory tree (a build context, an image's root, a download), resolved as
// moby's symlink.FollowSymlinkInScope resolves it for the classic builder: cleaned first, so that
// a `..` climbing out of the tree is refused rather than stopped at its top, then walked one
// component at a time with each symbolic link's target put in its place (an absolute target starts
// again at the tree's top, a `..` in it stops there), and a component that does not exist taken as
// it is. The trees are not changed by anyone meanwhile (a context berth extracted, an image's
// layers), so lstat on host paths is enough: each path handed to it has only real directories
// before its last component.
import { lstatSync, readlinkSync } from 'node:fs';
import { goClean } from './go-path.js';

/** FollowSymlinkInScope's limit: links and components walked in one resolution. */
const MAX_STEPS = 255;

/**
 * `p` (relative to `root`; a leading `/` means the root) resolved inside `root`: a clean relative
 * path, '.' for the root itself. Undefined where dockerd errs: `p` climbs out, a component is a
 * file where a directory should be, too many links.
 */
export function followSymlinkInScope(root: string, p: string): string | undefined {
  const rel = lexicalPath(p);
  if (rel === undefined) return undefined;
  let pending = rel === '.' ? [] : rel.split('/');
  /** the components resolved so far: real directories, or names that do not exist */
  let done: string[] = [];
  for (let steps = 0; pending.length > 0; steps++) {
    if (steps > MAX_STEPS) return undefined;
    const part = pending.shift() as string;
    if (part === '' || part === '.') continue;
    const clean = goClean(`/${[...done, part].join('/')}`);
    if (clean === '/') {
      done = [];
      continue;
    }
    let isLink: boolean;
    try {
      isLink = lstatSync(root + clean).isSymbolicLink();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
      isLink = false;
    }
    if (!isLink) {
      done = clean.slice(1).split('/');
      continue;
    }
    const target = readlinkSync(root + clean);
    if (target.startsWith('/')) done = [];
    pending = [...target.split('/'), ...pending];
  }
  return done.length === 0 ? '.' : done.join('/');
}

/** `p` cleaned as Go's filepath.Join(root, p) cleans it, relative ('.' for the root); undefined when it leaves the root. */
export function lexicalPath(p: string): string | undefined {
  const rel = goClean(p.replace(/^\/+/, ''));
  return rel === '..' || rel.startsWith('../') ? undefined : rel;
}
