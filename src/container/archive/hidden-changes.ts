// What docker diff leaves out: dockerd makes the mount targets every container gets in an init
// layer under the container's own (moby v20.10 daemon/initlayer/setup_unix.go), so they never show
// as changes; berth's runtime makes them in the container's layer, and they are hidden here, with
// the parent directories that only they changed.
import type { Change } from '../../rootfs/rootfs-store.js';

const INIT_PATHS = new Set(['/dev', '/dev/pts', '/dev/shm', '/dev/console', '/proc', '/sys', '/.dockerenv', '/etc/resolv.conf', '/etc/hosts', '/etc/hostname', '/etc/mtab']);
const INIT_PARENTS = new Set(['/etc', '/dev']);

/** The changes docker diff shows. */
export function visibleChanges(changes: readonly Change[]): Change[] {
  const shown = changes.filter((c) => c.kind === 2 || !INIT_PATHS.has(c.path) || INIT_PARENTS.has(c.path));
  return shown.filter((c) => c.kind === 2 || !INIT_PARENTS.has(c.path) || shown.some((o) => o.path.startsWith(`${c.path}/`)));
}
