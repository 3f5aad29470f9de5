// The options of dockerd's local driver (v20.10 volume/local/local_unix.go): `type`, `device` and
// `o`, the three arguments of a mount that is made when a container first needs the volume; a
// device needs a type and the other way round. `size` is a quota, which needs a filesystem with
// project quotas that berth does not set up.
import { invalidParameter } from '../errors.js';

export interface LocalMountOptions {
  type: string;
  device: string;
  o: string;
}

const VALID = new Set(['type', 'device', 'o', 'size']);

/** The mount the options ask for, undefined for a plain directory; a 400 in dockerd's words for options it refuses. */
export function localMountOptions(options: Readonly<Record<string, string>> | null): LocalMountOptions | undefined {
  const keys = Object.keys(options ?? {});
  if (options === null || keys.length === 0) return undefined;
  for (const key of keys) if (!VALID.has(key)) throw invalidParameter(`invalid option: "${key}"`);
  if ('size' in options) throw invalidParameter('quota size requested but no quota support');
  if (('type' in options || 'o' in options) && !('device' in options)) throw invalidParameter('missing required option: "device"');
  if ('device' in options && !('type' in options)) throw invalidParameter('missing required option: "type"');
  return { type: options.type ?? '', device: options.device ?? '', o: options.o ?? '' };
}

/** mount(2)'s flags among the `o` options, as Go's mount.ParseOptions splits them: dockerd's errors show them. */
const FLAGS: Record<string, number> = {
  ro: 0x1, nosuid: 0x2, nodev: 0x4, noexec: 0x8, sync: 0x10, remount: 0x20, mand: 0x40, dirsync: 0x80,
  noatime: 0x400, nodiratime: 0x800, bind: 0x1000, rbind: 0x5000, relatime: 0x200000, strictatime: 0x1000000,
};

/** The `, flags: 0x…` and `, data: …` of dockerd's mount error for these options. */
export function mountErrorDetail(o: string): string {
  let flags = 0;
  const data: string[] = [];
  for (const opt of o.split(',').filter((x) => x !== '')) {
    if (opt in FLAGS) flags |= FLAGS[opt];
    else if (!['rw', 'suid', 'dev', 'exec', 'async', 'atime', 'diratime', 'norelatime', 'defaults'].includes(opt)) data.push(opt);
  }
  return `${flags !== 0 ? `, flags: 0x${flags.toString(16)}` : ''}${data.length > 0 ? `, data: ${data.join(',')}` : ''}`;
}
