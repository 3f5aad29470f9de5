// Tmpfs mount options merged as moby/sys/mount's MergeTmpfsOptions does: the last word of each kind
// wins (noexec against exec, one propagation), data options (size=, mode=...) once each, unknown
// data refused.
import { invalidParameter } from '../../errors.js';

/** Each flag word and the kind it sets; words of one kind override each other. */
const FLAG_KIND: Record<string, string> = {
  ro: 'rdonly', rw: 'rdonly',
  suid: 'nosuid', nosuid: 'nosuid',
  dev: 'nodev', nodev: 'nodev',
  exec: 'noexec', noexec: 'noexec',
  sync: 'sync', async: 'sync',
  dirsync: 'dirsync',
  remount: 'remount',
  mand: 'mand', nomand: 'mand',
  atime: 'noatime', noatime: 'noatime',
  diratime: 'nodiratime', nodiratime: 'nodiratime',
  bind: 'bind', rbind: 'rbind',
  relatime: 'relatime', norelatime: 'relatime',
  strictatime: 'strictatime', nostrictatime: 'strictatime',
  private: 'propagation', rprivate: 'propagation', shared: 'propagation', rshared: 'propagation',
  slave: 'propagation', rslave: 'propagation', unbindable: 'propagation', runbindable: 'propagation',
};

const DATA_KEYS = new Set(['size', 'mode', 'uid', 'gid', 'nr_inodes', 'nr_blocks', 'mpol']);

export function mergeTmpfsOptions(options: readonly string[]): string[] {
  const seenFlags = new Set<string>();
  const seenData = new Set<string>();
  const out: string[] = [];
  for (let i = options.length - 1; i >= 0; i--) {
    const option = options[i];
    if (option === 'defaults' || option === '') continue;
    const kind = FLAG_KIND[option];
    if (kind) {
      if (seenFlags.has(kind)) continue;
      seenFlags.add(kind);
      out.unshift(option);
      continue;
    }
    const at = option.indexOf('=');
    const key = at < 0 ? option : option.slice(0, at);
    if (at < 0 || !DATA_KEYS.has(key)) throw invalidParameter(`Invalid tmpfs option ["${at < 0 ? option : `${key}" "${option.slice(at + 1)}`}"]`);
    if (seenData.has(key)) continue;
    seenData.add(key);
    out.unshift(option);
  }
  return out;
}
