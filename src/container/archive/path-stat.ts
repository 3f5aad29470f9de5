// The X-Docker-Container-Path-Stat header: base64 of dockerd's ContainerPathStat JSON, its mode in
// Go's os.FileMode bits (the type as high bits, then setuid, setgid, sticky and the permissions).
import type { BigIntStats } from 'node:fs';
import { formatRfc3339Nano } from '../../lib/timestamp.js';

export interface PathStat {
  name: string;
  size: number;
  mode: number;
  mtime: string;
  linkTarget: string;
}

const S_IFMT = 0o170000;
const TYPE_BITS: Record<number, number> = {
  0o040000: 2 ** 31, // ModeDir
  0o120000: 2 ** 27, // ModeSymlink
  0o010000: 2 ** 25, // ModeNamedPipe
  0o140000: 2 ** 24, // ModeSocket
  0o060000: 2 ** 26, // ModeDevice
  0o020000: 2 ** 26 + 2 ** 21, // ModeDevice | ModeCharDevice
};

/** st_mode as Go's os.FileMode. */
export function goFileMode(stMode: number): number {
  let mode = (stMode & 0o777) + (TYPE_BITS[stMode & S_IFMT] ?? 0);
  if (stMode & 0o4000) mode += 2 ** 23;
  if (stMode & 0o2000) mode += 2 ** 22;
  if (stMode & 0o1000) mode += 2 ** 20;
  return mode;
}

export function pathStat(name: string, stats: BigIntStats, linkTarget: string): PathStat {
  return { name, size: Number(stats.size), mode: goFileMode(Number(stats.mode)), mtime: formatRfc3339Nano(stats.mtimeNs), linkTarget };
}

export function encodePathStat(stat: PathStat): string {
  return Buffer.from(JSON.stringify(stat)).toString('base64');
}
