// The bytes a directory tree holds (regular files, each hard-linked inode once), as dockerd's
// directory.Size counts a container's own layer for `size=1`.
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

export function directorySizeBytes(dir: string): number {
  const seen = new Set<bigint>();
  let total = 0;
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(d, name);
      const st = lstatSync(p, { bigint: true });
      if (st.isDirectory()) walk(p);
      else if (!seen.has(st.ino)) {
        seen.add(st.ino);
        total += Number(st.size);
      }
    }
  };
  walk(dir);
  return total;
}
